"""Figure: the gate's decision over trust × hazard, one panel per number of missing fields (deterministic fixture)."""

from __future__ import annotations

from typing import Any

from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from figures import FigureContext, FigureSpec, with_sources
from figures.style import DECISION_COLOURS, DECISION_HATCHES, LABEL_BOX, new_figure

DECISIONS = ("refuse", "hold", "execute")


def _regions(codes: list[list[int]], trust: list[float], hazard: list[float]) -> list[tuple[int, float, float, int]]:
    """Connected regions of equal decision: (code, label trust, label hazard, cells), by flood fill."""
    rows, cols = len(codes), len(codes[0]) if codes else 0
    seen = [[False] * cols for _ in range(rows)]
    regions = []
    for i in range(rows):
        for j in range(cols):
            if seen[i][j]:
                continue
            code, stack, cells = codes[i][j], [(i, j)], []
            seen[i][j] = True
            while stack:
                a, b = stack.pop()
                cells.append((a, b))
                for c, d in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1)):
                    if 0 <= c < rows and 0 <= d < cols and not seen[c][d] and codes[c][d] == code:
                        seen[c][d] = True
                        stack.append((c, d))
            mean_a = sum(a for a, _ in cells) / len(cells)
            mean_b = sum(b for _, b in cells) / len(cells)
            # label at the region's cell nearest its centroid, so an L-shaped region keeps its label inside
            a, b = min(cells, key=lambda cell: ((cell[0] - mean_a) / rows) ** 2 + ((cell[1] - mean_b) / cols) ** 2)
            regions.append((code, trust[b], hazard[a], len(cells)))
    return regions


def _groups(surfaces: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Surfaces in order of missing fields, consecutive ones with identical decisions merged into one group."""
    groups: list[list[dict[str, Any]]] = []
    for key in sorted(surfaces, key=int):
        surface = surfaces[key]
        if groups and groups[-1][-1]["decision_code"] == surface["decision_code"]:
            groups[-1].append(surface)
        else:
            groups.append([surface])
    return groups


def _title(group: list[dict[str, Any]]) -> str:
    counts = [len(s["missing"]) for s in group]
    if len(counts) == 1:
        return f"{counts[0]} missing"
    return f"{', '.join(map(str, counts[:-1]))} or {counts[-1]} missing (same decisions)"


def plot(ctx: FigureContext) -> Figure:
    """Decision maps side by side, one per distinct landscape, with the trust and hazard thresholds drawn."""
    data: dict[str, Any] = ctx.var("notebooks.results.04_gate_landscape.results")
    gate: dict[str, Any] = ctx.var("policy.gate")
    trust, hazard = data["trust"], data["hazard"]
    codes_by_name: dict[str, int] = data["decision_codes"]
    name_by_code = {v: k for k, v in codes_by_name.items()}
    order = sorted(codes_by_name.values())
    cmap = ListedColormap([DECISION_COLOURS[name_by_code[c]] for c in order])
    figure = new_figure(ctx.spec.size)
    groups = _groups(data["surfaces"])
    panels = figure.subplots(1, len(groups), sharex=True, sharey=True, squeeze=False)[0]
    extent = (trust[0], trust[-1], hazard[0], hazard[-1])
    for axes, group in zip(panels, groups, strict=True):
        codes = group[0]["decision_code"]
        axes.imshow(
            codes,
            origin="lower",
            aspect="auto",
            extent=extent,
            cmap=cmap,
            vmin=order[0] - 0.5,
            vmax=order[-1] + 0.5,
            interpolation="nearest",
        )
        for value in (gate["trust_hard_floor"], gate["trust_full_credit"]):
            axes.axvline(value, color="black", linestyle="--", linewidth=0.7)
        for value in (gate["hazard_medium"], gate["hazard_high"]):
            axes.axhline(value, color="black", linestyle=":", linewidth=0.8)
        axes.contourf(
            trust,
            hazard,
            codes,
            levels=[order[0] - 0.5, *(c + 0.5 for c in order)],
            colors="none",
            hatches=[DECISION_HATCHES[name_by_code[c]] for c in order],
            hatchcolor="#6b6b6b",
        )
        for code, x, y, n in _regions(codes, trust, hazard):
            if n >= 60:
                axes.text(x, y, name_by_code[code].upper(), ha="center", va="center", fontsize=7, bbox=LABEL_BOX)
        axes.set_title(_title(group))
        axes.set_xlabel("agent trust")
        axes.grid(False)
    panels[0].set_ylabel("hazard = max(RISK, FAILURE)")
    return figure


FIGURE = FigureSpec(
    id="gate_landscape",
    caption=with_sources(
        "Decision landscape of the real gate over << landscape.trust_steps >> trust × << landscape.hazard_steps >> hazard "
        "levels, for a proposal missing none to << landscape.missing_max >> of the completeness fields, clear "
        "budget, no recent failures and the role each trust level earns. Dashed verticals: trust floor "
        "(<< policy.gate.trust_hard_floor | num >>) and full credit (<< policy.gate.trust_full_credit | num >>); dotted "
        "horizontals: hazard bands (<< policy.gate.hazard_medium | num >>, << policy.gate.hazard_high | num >>). "
        "Numbers of missing fields that give the same decision everywhere share a panel: one missing field lowers every "
        "score by << (policy.gate.weights.completeness * policy.gate.missing_field_penalty) | fixed(4) >>, which can "
        "move a decision only where a score lies that close above a threshold. Deterministic fixture: every cell is one "
        "evaluation of ActuationGate.",
        __file__,
        "notebooks/04_gate_landscape.ipynb",
    ),
    alt="Side-by-side heat maps of the gate decision over trust (x) and hazard (y), split into labelled REFUSE, HOLD and EXECUTE regions.",
    description=(
        "One panel per distinct decision map, for increasing numbers of missing completeness fields (numbers that give "
        "identical maps share a panel, as the panel title says), share a trust axis from zero to one and a hazard axis "
        "from zero upwards. Each cell is coloured and the regions are labelled by decision: REFUSE (orange), HOLD (yellow) "
        "and EXECUTE (blue), with refusals hatched diagonally and holds dotted. Everything left of the trust floor is REFUSE because of the hard override. Right of it, the "
        "decision steps down at the two hazard bands (dotted lines) and steps up at full trust credit (dashed line); as "
        "fields go missing, the EXECUTE region shrinks and REFUSE appears in the highest hazard band. The boundaries are "
        "straight because the gate's components are piecewise constant."
    ),
    evidence_class="deterministic-fixture",
    inputs=["notebooks.results.04_gate_landscape.results", "policy.gate"],
    plot=plot,
    size=(6.5, 2.6),
    width="100%",
)
