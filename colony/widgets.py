"""Explorers for JupyterLab: the gate landscape and pheromone decay, live on the real subsystems.

:class:`GateExplorer` has controls for trust, RISK and FAILURE pressure, missing
proposal fields, budget, recent failures and role. Every change re-evaluates the real
:class:`~colony.kernel.actuation_gate.ActuationGate` (``evaluate_inputs`` / ``breakdown``) and
shows the score, decision, reasons and a trust × hazard heatmap of decision bands with
the current point marked. :class:`DecayExplorer` deposits a trace in a real
:class:`~colony.kernel.pheromone_store.PheromoneStore` and plots its tick-by-tick strength.

>>> explorer = GateExplorer(render=False)
>>> explorer.controls["failure"].value = 3.0
>>> explorer.result().decision.value, explorer.result().gate_score
('hold', 0.725)
"""

from __future__ import annotations

import html
import io
from dataclasses import replace
from typing import Any

import ipywidgets as widgets

from colony.config import Policy, default_policy
from colony.kernel.actuation_gate import GateInputs
from colony.models import AgentRole, DecayRate, GateResult
from colony.notebooks.fixtures import COMPLETENESS_FIELDS, DECISION_CODES, decay_fixture, gate_for
from colony.research.replay import DEFAULT_AGENT_TRUST

__all__ = ["DECISION_CLASS", "DecayExplorer", "GateExplorer"]

DECISION_CLASS = "colony-gate-decision"  # CSS class of the decision text (browser tests find it)
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
    ``recent_failures`` and ``role`` to their widgets; ``state()`` is the current
    :class:`GateInputs` and ``result()`` the gate's :class:`GateResult` for it.
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
        self.decision = widgets.HTML()
        self.decision.add_class(DECISION_CLASS)
        self.details = widgets.HTML()
        self.heatmap = widgets.Image(format="png", layout=widgets.Layout(width="34em", height="auto"))
        self._grid_cache: dict[tuple[Any, ...], tuple[list[list[int]], list[list[float]]]] = {}
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        panel = widgets.VBox([*self.controls.values(), self.decision, self.details])
        top = widgets.Layout(align_items="flex-start")
        self.widget = widgets.HBox([panel, self.heatmap] if render else [panel], layout=top)
        self._update()

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
        )

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
        if self.render:
            self.heatmap.value = self._draw(inputs, result.gate_score)

    def _grid(self, s: GateInputs) -> tuple[list[list[int]], list[list[float]]]:
        key = (s.role, s.missing, s.budget_approved, s.recent_failures)
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
        ax.set_title(
            f"score {score:.3f} · role {s.role.value} · missing {len(s.missing)} · recent failures {s.recent_failures}",
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
