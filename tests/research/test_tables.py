"""Tables and figures read a study result without recomputing anything."""

from __future__ import annotations

import pytest

from colony.research import plots
from colony.research.study import StudyOutputs
from colony.research.tables import condition_rows, disposition_rows, headline, hypothesis_rows, paired_rows, per_item_rows

pytestmark = pytest.mark.xdist_group("small_study")  # the session's small study is built on one worker only


def test_tables_follow_the_results(small_study: StudyOutputs) -> None:
    r = small_study.results
    items = per_item_rows(r)
    assert len(items) == r["analysis"]["per_condition"]["composite"]["totals"]["items"]
    assert {"composite.first", "always_execute.final", "would_fail"} <= set(items[0])
    conditions = [row["condition"] for row in condition_rows(r)]
    assert conditions == r["analysis"]["conditions"] == [row["condition"] for row in disposition_rows(r)]
    composite = condition_rows(r)[0]
    fr = r["analysis"]["per_condition"]["composite"]["metrics"]["failure_rate"]
    assert (
        composite["failure_rate"] == fr["value"] and composite["failure_rate_n"] == f"{fr['numerator']:g}/{fr['denominator']:g}"
    )
    paired = paired_rows(r)
    assert {row["baseline"] for row in paired} == set(r["analysis"]["conditions"][1:])
    hyps = [row["hypothesis"] for row in hypothesis_rows(r)]
    assert hyps == ["H1", "H2", "H3 vs_execute", "H3 vs_refuse", "H4"]
    assert "verification" not in headline(r)  # this study ran without it


def test_every_figure_draws(small_study: StudyOutputs) -> None:
    for draw in (plots.plot_rates, plots.plot_paired, plots.plot_hypotheses, plots.plot_calibration, plots.plot_dispositions):
        fig = draw(small_study.results)
        assert fig.axes and all(ax.has_data() or ax.get_title() for ax in fig.axes)
