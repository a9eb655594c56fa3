"""Explorers for JupyterLab: the gate landscape and pheromone decay, live on the real subsystems.

:class:`GateExplorer` has controls for trust, RISK and FAILURE pressure, missing
proposal fields, budget, recent failures and role, and for the change term: the learned
risk of the proposal's change, the hold threshold and whether the hold budget has room.
Every change re-evaluates the real :class:`~colony.kernel.actuation_gate.ActuationGate`
(``evaluate_inputs`` / ``breakdown``) and shows the score, decision, reasons and a trust ×
hazard heatmap of decision bands with the current point marked. An example change (a diff
in a text area, or one of :mod:`colony.research.change_examples`) is measured by colony and
scored by the example prior's model; its risk moves the change-risk slider and its riskiest
lines are listed. :class:`DecayExplorer` deposits a trace in a real
:class:`~colony.kernel.pheromone_store.PheromoneStore` and plots its tick-by-tick strength.

>>> explorer = GateExplorer(render=False)
>>> explorer.controls["failure"].value = 3.0
>>> explorer.result().decision.value, explorer.result().gate_score
('hold', 0.725)
>>> explorer.controls["failure"].value = 0.0
>>> explorer.change_example.value = "paired-risky"  # its learned risk is above the hold threshold
>>> explorer.result().decision.value, explorer.result().gate_score
('hold', 0.575)
"""

from __future__ import annotations

import html
import io
from dataclasses import replace
from typing import Any

import ipywidgets as widgets

from colony.config import Policy, default_policy
from colony.errors import ValidationError
from colony.kernel.actuation_gate import GateInputs
from colony.kernel.change_risk import ChangeAssessment
from colony.models import AgentRole, DecayRate, GateResult
from colony.notebooks.fixtures import COMPLETENESS_FIELDS, DECISION_CODES, decay_fixture, gate_for
from colony.research.change_examples import EXAMPLE_CHANGES, RISKY_CHANGE, SAFE_CHANGE, ExampleScorer, ScoredChange
from colony.research.replay import DEFAULT_AGENT_TRUST

__all__ = ["CHANGE_EXAMPLE_CLASS", "CHANGE_LINES_CLASS", "CHANGE_RISK_CLASS", "DECISION_CLASS", "DecayExplorer", "GateExplorer"]

DECISION_CLASS = "colony-gate-decision"  # CSS class of the decision text (browser tests find it)
CHANGE_RISK_CLASS = "colony-change-risk"  # CSS class of the change-risk slider
CHANGE_EXAMPLE_CLASS = "colony-change-example"  # CSS class of the example-change picker
CHANGE_LINES_CLASS = "colony-change-lines"  # CSS class of the example change's measured risk and riskiest lines
_EXAMPLES = {e.name: e for e in (SAFE_CHANGE, RISKY_CHANGE, *EXAMPLE_CHANGES)}  # the picker's order: the safe one first
_BAND_COLOURS = ("#e45756", "#f2b447", "#54a24b")  # refuse, hold, execute
_UNIT_TRACE = 1.0  # the decay explorer's initial deposit: a unit trace


def _png(fig: Any) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _linspace(lo: float, hi: float, n: int) -> list[float]:
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)]


class GateExplorer:
    """Sliders and toggles over the gate's inputs, evaluated by the real gate.

    Parameters:
        policy: the policy whose gate is explored (default: the policy in force).
        render: draw the heatmap (False keeps updates cheap, e.g. in tests).
        trust_steps, hazard_steps: heatmap resolution.

    ``controls`` maps ``trust``, ``risk``, ``failure``, ``missing``, ``budget_approved``,
    ``recent_failures``, ``role``, ``change_risk``, ``change_threshold`` and ``change_budget_room``
    to their widgets; ``state()`` is the current :class:`GateInputs` and ``result()`` the gate's
    :class:`GateResult` for it.

    The change term: ``change_example`` picks an example change and ``change_diff`` holds its diff
    (edit it: colony measures it when the text area loses focus). ``scorer`` scores it with the
    example prior's model (:class:`~colony.research.change_examples.ExampleScorer`) and sets
    ``change_risk`` to its risk; move the slider to see the verdict at any other risk. The hold
    threshold starts at the example prior's (the policy's hold budget over its reference risks);
    a change above it is held while the budget has room, and the verdict names its riskiest lines.
    """

    def __init__(
        self, policy: Policy | None = None, *, render: bool = True, trust_steps: int = 51, hazard_steps: int = 41
    ) -> None:
        self.policy = policy if policy is not None else default_policy()
        self.gate = gate_for(self.policy)
        self.render = render
        self._trust_axis = _linspace(0.0, 1.0, trust_steps)
        self.hazard_max = self.policy.pheromone.max_strength
        self._hazard_axis = _linspace(0.0, self.hazard_max, hazard_steps)
        gp = self.policy.gate
        style = {"description_width": "9em"}
        layout = widgets.Layout(width="28em")
        self.controls: dict[str, Any] = {
            "trust": widgets.FloatSlider(
                value=DEFAULT_AGENT_TRUST, min=0.0, max=1.0, step=0.01, description="trust", style=style, layout=layout
            ),
            "risk": widgets.FloatSlider(
                value=0.0, min=0.0, max=self.hazard_max, step=0.1, description="RISK pressure", style=style, layout=layout
            ),
            "failure": widgets.FloatSlider(
                value=0.0, min=0.0, max=self.hazard_max, step=0.1, description="FAILURE pressure", style=style, layout=layout
            ),
            "missing": widgets.SelectMultiple(
                options=list(COMPLETENESS_FIELDS),
                value=(),
                rows=len(COMPLETENESS_FIELDS),
                description="missing fields",
                style=style,
            ),
            "budget_approved": widgets.Checkbox(value=True, description="budget available", style=style),
            "recent_failures": widgets.IntSlider(
                value=0, min=0, max=gp.recent_failure_window, description="recent failures", style=style, layout=layout
            ),
            "role": widgets.Dropdown(
                options=[r.value for r in AgentRole], value=AgentRole.DISPATCHER.value, description="role", style=style
            ),
        }
        self._change_controls(style, layout)
        self.decision = widgets.HTML()
        self.decision.add_class(DECISION_CLASS)
        self.details = widgets.HTML(layout={"width": "30em"})
        self.heatmap = widgets.Image(format="png", layout=widgets.Layout(width="34em", height="auto"))
        self._grid_cache: dict[tuple[Any, ...], tuple[list[list[int]], list[list[float]]]] = {}
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        panel = widgets.VBox([*self.controls.values(), self.decision, self.details], layout={"min_width": "30em"})
        top = widgets.Layout(align_items="flex-start")
        change = widgets.VBox([self.change_example, self.change_diff, self.change_info])
        self.widget = widgets.HBox([panel, widgets.VBox([self.heatmap, change]) if render else change], layout=top)
        self._update()

    def _change_controls(self, style: dict[str, str], layout: widgets.Layout) -> None:
        """The change term's sliders (in ``controls``), the example picker, the diff and its display."""
        self.scorer = ExampleScorer(self.policy.change)
        self._scored: ScoredChange = self.scorer.score(SAFE_CHANGE.diff)
        self._diff_error, self._quiet = "", False
        unit = {"min": 0.0, "max": 1.0, "step": 0.001, "readout_format": ".3f", "style": style, "layout": layout}
        self.controls |= {
            "change_risk": widgets.FloatSlider(value=self._scored.risk, description="change risk", **unit),
            "change_threshold": widgets.FloatSlider(value=self.scorer.threshold, description="hold threshold", **unit),
            "change_budget_room": widgets.Checkbox(value=True, description="hold budget has room", style=style),
        }
        self.controls["change_risk"].add_class(CHANGE_RISK_CLASS)
        labels = [(f"{e.name} ({'failed' if e.failed else 'passed'})", e.name) for e in _EXAMPLES.values()]
        self.change_example = widgets.Dropdown(options=labels, description="example change", style=style, layout=layout)
        self.change_example.add_class(CHANGE_EXAMPLE_CLASS)
        self.change_diff = widgets.Textarea(value=SAFE_CHANGE.diff, rows=9, continuous_update=False, layout={"width": "36em"})
        self.change_info = widgets.HTML(layout={"width": "38em"})
        self.change_info.add_class(CHANGE_LINES_CLASS)
        self.change_example.observe(lambda c: setattr(self.change_diff, "value", _EXAMPLES[c["new"]].diff), names="value")
        self.change_diff.observe(self._on_diff, names="value")

    # --------------------------------------------------------------- state
    def state(self) -> GateInputs:
        """The gate inputs the controls describe."""
        c = self.controls
        chosen = set(c["missing"].value)
        return GateInputs(
            trust_score=float(c["trust"].value),
            role=AgentRole(c["role"].value),
            risk=float(c["risk"].value),
            failure=float(c["failure"].value),
            missing=tuple(f for f in COMPLETENESS_FIELDS if f in chosen),
            budget_approved=bool(c["budget_approved"].value),
            recent_failures=int(c["recent_failures"].value),
            change=self.change_assessment(),
        )

    def change_assessment(self) -> ChangeAssessment:
        """The example change at the slider's risk and threshold, as consequence memory would hand it to the gate."""
        c = self.controls
        risk, threshold = float(c["change_risk"].value), float(c["change_threshold"].value)
        return self.scorer.assessment(self._scored, risk=risk, threshold=threshold, room=bool(c["change_budget_room"].value))

    def result(self) -> GateResult:
        """The real gate's verdict for the current controls."""
        return self.gate.evaluate_inputs(self.state())

    def heatmap_data(self) -> dict[str, Any]:
        """Decision codes and scores over trust × hazard for the current non-axis settings, and the point."""
        s = self.state()
        codes, scores = self._grid(s)
        return {
            "trust": self._trust_axis,
            "hazard": self._hazard_axis,
            "decision_code": codes,
            "score": scores,
            "point": (s.trust_score, max(s.risk, s.failure)),
        }

    # ------------------------------------------------------------- updates
    def _on_change(self, _change: dict[str, Any]) -> None:
        if not self._quiet:
            self._update()

    def _on_diff(self, change: dict[str, Any]) -> None:
        """Measure and score the new diff; its risk moves the slider (one update for both)."""
        try:
            self._scored, self._diff_error = self.scorer.score(change["new"]), ""
        except ValidationError as exc:  # keep the last change that measured; say why this one did not
            self._diff_error = str(exc)
        self._quiet = True
        try:
            self.controls["change_risk"].value = self._scored.risk
        finally:
            self._quiet = False
        self._update()

    def _update(self) -> None:
        inputs = self.state()
        result = self.gate.evaluate_inputs(inputs)
        b = self.gate.breakdown(inputs)
        colour = _BAND_COLOURS[DECISION_CODES[result.decision.value]]
        self.decision.value = (
            f'<span style="font-size:1.4em;font-weight:bold;color:{colour}">{result.decision.value.upper()}</span>'
            f" &nbsp; score {result.gate_score:.3f}"
        )
        rows = "".join(
            f"<tr><td>{name}</td><td>{value:.3f}</td></tr>"
            for name, value in (("budget", b.budget), ("risk", b.risk), ("trust", b.trust), ("completeness", b.completeness))
        )
        override = f"<p>hard override: <b>{html.escape(b.override)}</b></p>" if b.override else ""
        required = ", ".join(html.escape(r) for r in result.required_evidence) or "—"
        self.details.value = (
            f"<p>effective hazard {b.hazard:.2f}</p><table>{rows}</table>{override}"
            f"<p><b>reason:</b> {html.escape(result.reason)}</p><p><b>required evidence:</b> {required}</p>"
        )
        self.change_info.value = self._change_html(inputs)
        if self.render:
            self.heatmap.value = self._draw(inputs, result.gate_score)

    def change_bands(self, inputs: GateInputs | None = None) -> tuple[GateResult, GateResult]:
        """The verdicts at a change risk at or below the threshold and above it, all else as the controls say."""
        s = inputs if inputs is not None else self.state()
        a, room = s.change, bool(self.controls["change_budget_room"].value)
        assert a is not None
        below = replace(a, held=False, budget_spent=False, lines=())
        above = replace(a, held=room, budget_spent=not room, lines=self._scored.lines)
        return self.gate.evaluate_inputs(replace(s, change=below)), self.gate.evaluate_inputs(replace(s, change=above))

    def _change_html(self, inputs: GateInputs) -> str:
        """What the threshold is, the verdict on either side of it, and the measured change's riskiest lines."""
        a, cp, sc = inputs.change, self.policy.change, self._scored
        assert a is not None
        t = min(max(a.threshold, 0.0), 1.0) * 100
        bands = "".join(
            f'<div style="width:{w:.2f}%;background:{_BAND_COLOURS[DECISION_CODES[r.decision.value]]};text-align:center">'
            f"{r.decision.value.upper()}</div>"
            for w, r in zip((t, 100 - t), self.change_bands(inputs), strict=True)
            if w > 0
        )
        marker = f'<div style="position:absolute;left:{a.risk * 100:.2f}%;top:-3px;bottom:-3px;border-left:3px solid #000"></div>'
        rows = "".join(
            f"<tr><td>{html.escape(x.path)}:{x.line}</td><td>{'added' if x.added else 'deleted'}</td><td>{x.score:.3f}</td>"
            f"<td><code>{html.escape(text.strip())}</code></td></tr>"
            for x, text in zip(sc.lines, sc.texts, strict=True)
        )
        error = f'<p style="color:#e45756">not measured: {html.escape(self._diff_error)}</p>' if self._diff_error else ""
        r = sc.change.record
        return (
            '<div style="width:34em;white-space:normal">'
            f"<p><b>hold threshold {a.threshold:.3f}</b>: the largest learned risk the hold budget lets pass. The policy "
            f"may hold change.hold_budget = {cp.hold_budget:.0%} of the last change.window = {cp.window} {cp.budget_unit} "
            f"on their risk; a window holding the example prior's {len(self.scorer.prior.reference)} reference changes "
            f"puts it at {self.scorer.threshold:.3f}. Above it a change is held while the budget has room, and passes "
            "with a warning when it has none.</p>"
            f'<p>verdict by change risk (marker: {a.risk:.3f})</p><div style="position:relative;display:flex;width:100%;'
            f'height:1.5em;line-height:1.5em;font-size:0.85em">{bands}{marker}</div>{error}'
            f"<p>the diff (edit it: colony measures it when the text area loses focus): LA {r.la}, LD {r.ld}, {r.nf} "
            f"file(s); learned risk <b>{sc.risk:.3f}</b> by the example prior ({len(EXAMPLE_CHANGES)} example changes and "
            "their outcomes, learned in order). Its riskiest lines (the sum of each line's token weights), which the "
            "verdict names above the threshold:</p>"
            f"<table><tr><th>line</th><th>side</th><th>score</th><th>text</th></tr>{rows or '<tr><td colspan=4>no line raises the risk</td></tr>'}</table></div>"
        )

    def _grid(self, s: GateInputs) -> tuple[list[list[int]], list[list[float]]]:
        held = s.change is not None and s.change.held
        spent = s.change is not None and s.change.budget_spent
        key = (s.role, s.missing, s.budget_approved, s.recent_failures, held, spent)
        cached = self._grid_cache.get(key)
        if cached is None:
            codes, scores = [], []
            for h in self._hazard_axis:
                row_c, row_s = [], []
                for t in self._trust_axis:
                    r = self.gate.evaluate_inputs(replace(s, trust_score=t, risk=0.0, failure=h))
                    row_c.append(DECISION_CODES[r.decision.value])
                    row_s.append(r.gate_score)
                codes.append(row_c)
                scores.append(row_s)
            cached = self._grid_cache[key] = (codes, scores)
        return cached

    def _draw(self, s: GateInputs, score: float) -> bytes:
        from matplotlib.colors import BoundaryNorm, ListedColormap
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch

        codes, scores = self._grid(s)
        fig = Figure(figsize=(5.2, 4.0), dpi=90, layout="constrained")
        ax = fig.add_subplot()
        cmap = ListedColormap(list(_BAND_COLOURS))
        ax.pcolormesh(
            self._trust_axis, self._hazard_axis, codes, cmap=cmap, norm=BoundaryNorm([-0.5, 0.5, 1.5, 2.5], 3), shading="nearest"
        )
        values = sorted({round(v, 9) for row in scores for v in row})
        if len(values) > 1:  # outline the regions of equal score
            mids = [(a + b) / 2 for a, b in zip(values, values[1:], strict=False)]
            ax.contour(self._trust_axis, self._hazard_axis, scores, levels=mids, colors="k", linewidths=0.4)
        hazard = max(s.risk, s.failure)
        ax.plot(
            [s.trust_score], [hazard], marker="X", markersize=12, color="black", markeredgecolor="white", clip_on=False, zorder=5
        )
        ax.set_xlabel("trust")
        ax.set_ylabel("effective hazard max(RISK, FAILURE)")
        held = " · change held" if s.change is not None and s.change.held else ""
        ax.set_title(
            f"score {score:.3f} · role {s.role.value} · missing {len(s.missing)} · recent failures {s.recent_failures}{held}",
            fontsize=8,
        )
        ax.legend(
            handles=[Patch(color=c, label=d) for d, c in zip(("refuse", "hold", "execute"), _BAND_COLOURS, strict=True)],
            loc="upper right",
            fontsize=7,
        )
        return _png(fig)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


class DecayExplorer:
    """A trace's strength tick by tick in a real pheromone store, for a chosen strength and decay class."""

    def __init__(self, policy: Policy | None = None, *, render: bool = True, max_ticks: int | None = None) -> None:
        self.policy = policy if policy is not None else default_policy()
        self.render = render
        pp = self.policy.pheromone
        slowest = min(pp.decay_per_tick.fast, pp.decay_per_tick.normal, pp.decay_per_tick.slow)
        limit = max_ticks if max_ticks is not None else int(pp.max_strength / slowest) + 1
        style = {"description_width": "7em"}
        self.controls: dict[str, Any] = {
            "strength": widgets.FloatSlider(
                value=_UNIT_TRACE, min=0.0, max=pp.max_strength, step=0.1, description="strength", style=style
            ),
            "decay_class": widgets.Dropdown(
                options=[r.value for r in DecayRate], value=DecayRate.FAST.value, description="decay class", style=style
            ),
            "ticks": widgets.IntSlider(value=min(limit, 20), min=1, max=limit, description="ticks", style=style),
        }
        self.summary = widgets.HTML()
        self.plot = widgets.Image(format="png", layout=widgets.Layout(width="32em", height="auto"))
        for control in self.controls.values():
            control.observe(lambda _c: self._update(), names="value")
        panel = widgets.VBox([*self.controls.values(), self.summary])
        self.widget = widgets.HBox([panel, self.plot], layout=widgets.Layout(align_items="flex-start"))
        self._update()

    def result(self) -> dict[str, Any]:
        """The trace's fixture record (values read from the store after each tick)."""
        c = self.controls
        out = decay_fixture(
            strengths=[float(c["strength"].value)],
            decay_classes=[c["decay_class"].value],
            ticks=int(c["ticks"].value),
            policy=self.policy,
        )
        return dict(out["traces"][0])

    def _update(self) -> None:
        r = self.result()
        if r["extinct_at"] is not None:
            text = f"gone after <b>{r['extinct_at']}</b> ticks"
        else:
            text = f"retains <b>{r['retained_fraction']:.0%}</b> after {len(r['values']) - 1} ticks (gone at tick {r['predicted_extinct_at']})"
        self.summary.value = f"<p>{r['per_tick']} per tick; {text}</p>"
        if self.render:
            from matplotlib.figure import Figure

            fig = Figure(figsize=(5.0, 3.2), dpi=90, layout="constrained")
            ax = fig.add_subplot()
            ax.plot(range(len(r["values"])), r["values"], marker="o", markersize=3, drawstyle="steps-post")
            ax.set_xlabel("tick")
            ax.set_ylabel("strength")
            ax.set_title(f"{r['decay_class']} trace, deposited {r['deposited']:g}", fontsize=9)
            self.plot.value = _png(fig)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
