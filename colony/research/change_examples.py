"""Example changes for the surfaces that explain the change term: small diffs, each with what came of it.

Illustrative, not evidence. Twenty hand-written one-hunk changes to a small imagined service: seven
that broke something, with three patterns that recur (``eval`` of text, a command run through the
shell, an error swallowed by ``except Exception: pass``) and one ``pickle`` of cached data, and
thirteen that did not (wording, tests, logging, types, names).
Learned in a fixed order, :data:`EXAMPLE_PASSES` times over, they give a
:class:`~colony.kernel.change_risk.ChangeRisk` that has seen which tokens came with failures, so the
GateExplorer and ``colony replay --change`` can show the learned risk, the hold threshold and the
riskiest lines without the packaged prior. Nothing here is random: the same examples, the same
order, the same model, byte for byte.

:data:`RISKY_CHANGE` and :data:`SAFE_CHANGE` are the reviewer's two changes at the paired target's
file: one brings three of the failed examples' patterns, the other a comment and a type.

>>> prior = example_prior()
>>> model = prior.model()
>>> model.risk(measure_diff(RISKY_CHANGE.diff)) > example_threshold(prior) > model.risk(measure_diff(SAFE_CHANGE.diff))
True
"""

from __future__ import annotations

from dataclasses import dataclass

from colony.config import ChangePolicy, default_policy
from colony.kernel.change import MeasuredChange, measure_diff
from colony.kernel.change_parse import parse_diff
from colony.kernel.change_prior import ChangePrior, fit_prior
from colony.kernel.change_risk import ChangeAssessment, LineRisk
from colony.kernel.risk_window import RiskWindow
from colony.research.paired_fixture import SAME_TARGET

__all__ = [
    "EXAMPLE_CHANGES",
    "EXAMPLE_PASSES",
    "PAIRED_PATH",
    "RISKY_CHANGE",
    "SAFE_CHANGE",
    "ExampleChange",
    "ExampleScorer",
    "ScoredChange",
    "example_outcomes",
    "example_prior",
    "example_threshold",
]

EXAMPLE_PASSES = 5
"""How many times the examples are learned, in order (a few outcomes each, as a colony would see them recur)."""
PAIRED_PATH = SAME_TARGET.replace(".", "/") + ".py"
"""The paired target's file: where the reviewer's example changes go."""


@dataclass(frozen=True, slots=True)
class ExampleChange:
    """One change: ``old`` lines at ``line`` of ``path`` replaced by ``new`` (empty ``old``: lines added), and whether it failed."""

    name: str
    path: str
    line: int
    old: str
    new: str
    failed: bool

    @property
    def diff(self) -> str:
        """The change as a one-hunk unified diff (what ``git diff`` would print for it)."""
        old, new = self.old.splitlines(), self.new.splitlines()
        start = self.line if old else self.line - 1
        body = "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)
        return f"--- a/{self.path}\n+++ b/{self.path}\n@@ -{start},{len(old)} +{self.line},{len(new)} @@\n{body}"


def _ex(name: str, path: str, line: int, old: str, new: str, *, failed: bool) -> ExampleChange:
    return ExampleChange(name, path, line, old, new, failed)


EXAMPLE_CHANGES: tuple[ExampleChange, ...] = (
    _ex(
        "docs-wording",
        "docs/usage.md",
        3,
        "Run the tool with --help.",
        "Run the tool with --help to list its options.",
        failed=False,
    ),
    _ex("eval-config", "app/config.py", 12, "    value = ast.literal_eval(raw)", "    value = eval(raw)", failed=True),
    _ex(
        "test-missing-file",
        "tests/test_store.py",
        20,
        "",
        'def test_missing_file_raises():\n    with pytest.raises(StoreError):\n        load("missing")',
        failed=False,
    ),
    _ex("log-name", "app/log.py", 5, '    logger.info("start")', '    logger.info("start %s", name)', failed=False),
    _ex(
        "shell-command",
        "app/runner.py",
        30,
        "    subprocess.run(argv, check=True)",
        "    subprocess.run(command, shell=True)",
        failed=True,
    ),
    _ex("type-hints", "app/util.py", 1, "def total(items):", "def total(items: list[int]) -> int:", failed=False),
    _ex(
        "swallowed-error",
        "app/store.py",
        41,
        "    except OSError as exc:\n        raise StoreError(path) from exc",
        "    except Exception:\n        pass",
        failed=True,
    ),
    _ex("rename-count", "app/report.py", 8, "    n = len(rows)", "    count = len(rows)", failed=False),
    _ex("timeout", "app/limits.py", 2, "TIMEOUT_S = 30", "TIMEOUT_S = 60", failed=False),
    _ex("eval-template", "app/render.py", 27, "    text = template.format(**context)", "    text = eval(template)", failed=True),
    _ex(
        "docstring", "app/api.py", 14, "def handle(request):", 'def handle(request):\n    """Answer one request."""', failed=False
    ),
    _ex("pickle-cache", "app/cache.py", 44, "    entry = json.loads(blob)", "    entry = pickle.loads(blob)", failed=True),
    _ex(
        "test-parametrize",
        "tests/test_config.py",
        9,
        "def test_reads_port():",
        '@pytest.mark.parametrize("port", [80, 8080])\ndef test_reads_port(port):',
        failed=False,
    ),
    _ex(
        "shell-deploy",
        "scripts/deploy.py",
        18,
        '    run(["rsync", src, dst])',
        '    subprocess.run(f"rsync {src} {dst}", shell=True)',
        failed=True,
    ),
    _ex("readme-typo", "README.md", 7, "Teh service answers requests.", "The service answers requests.", failed=False),
    _ex(
        "swallowed-retry",
        "app/client.py",
        63,
        "    except TimeoutError:\n        retry(request)",
        "    except Exception:\n        pass",
        failed=True,
    ),
    _ex("f-string", "app/report.py", 12, '    return "%d rows" % count', '    return f"{count} rows"', failed=False),
    _ex("sorted-keys", "app/report.py", 15, "    keys = list(totals)", "    keys = sorted(totals)", failed=False),
    _ex("constant-name", "app/limits.py", 3, "RETRIES = 3", "MAX_RETRIES = 3", failed=False),
    _ex("test-timeout", "tests/test_limits.py", 4, "    assert TIMEOUT_S == 30", "    assert TIMEOUT_S == 60", failed=False),
)
"""The examples in the order they are learned."""

RISKY_CHANGE = _ex(
    "paired-risky",
    PAIRED_PATH,
    10,
    "    value = parse(text)\n    return apply(value)",
    "    try:\n        value = eval(text)\n        subprocess.run(value, shell=True)\n    except Exception:\n        pass",
    failed=True,
)
"""The reviewer's risky change at the paired target: ``eval``, a shell command and a swallowed error together."""

SAFE_CHANGE = _ex(
    "paired-safe",
    PAIRED_PATH,
    10,
    "    value = parse(text)\n    return apply(value)",
    "    value: Value = parse(text)  # the text is checked above\n    return apply(value)",
    failed=False,
)
"""The reviewer's safe change at the paired target: a type and a comment."""


def example_outcomes(passes: int = EXAMPLE_PASSES) -> list[ExampleChange]:
    """The order the examples are learned in: all of them, ``passes`` times over."""
    return [example for _ in range(passes) for example in EXAMPLE_CHANGES]


def example_prior(*, passes: int = EXAMPLE_PASSES, policy: ChangePolicy | None = None) -> ChangePrior:
    """A prior fitted on :func:`example_outcomes` (what a colony learning those outcomes from zero would know).

    Its reference risks are the examples' own, scored by the fitted model: a window seeded with them
    gives :func:`example_threshold`.
    """
    cfg = policy or default_policy().change
    learned = example_outcomes(passes)
    failed = sum(e.failed for e in EXAMPLE_CHANGES)
    provenance = {
        "fitted_on": "colony.research.change_examples",
        "examples": len(EXAMPLE_CHANGES),
        "failed": failed,
        "passes": passes,
        "note": "illustrative hand-written changes, not evidence",
    }
    return fit_prior([(measure_diff(e.diff, policy=cfg).record, e.failed) for e in learned], provenance=provenance, policy=cfg)


def example_threshold(prior: ChangePrior, *, policy: ChangePolicy | None = None) -> float:
    """The hold threshold of a new colony started from ``prior``: the policy's hold budget over its reference risks.

    The largest risk a change may have and not be held: with ``change.budget_unit: changes``, the
    ``hold_budget`` share of the reference changes lies above it.
    """
    cfg = policy or default_policy().change
    return RiskWindow(cfg.window, cfg.hold_budget, cfg.budget_unit, prior.reference).threshold()


@dataclass(frozen=True, slots=True)
class ScoredChange:
    """A diff as the example model scores it: the measured change, its risk, its riskiest lines and their text."""

    change: MeasuredChange
    risk: float
    lines: tuple[LineRisk, ...]
    texts: tuple[str, ...]


class ExampleScorer:
    """The example prior's model and threshold, scoring a diff as consequence memory would (for the explorers).

    >>> scorer = ExampleScorer()
    >>> risky = scorer.score(RISKY_CHANGE.diff)
    >>> risky.risk > scorer.threshold, [(x.line, x.added) for x in risky.lines], risky.texts[0].strip()
    (True, [(12, True), (11, True), (13, True)], 'subprocess.run(value, shell=True)')
    >>> scorer.assessment(risky, risk=0.9, threshold=scorer.threshold, room=False).budget_spent
    True
    """

    def __init__(self, policy: ChangePolicy | None = None, *, passes: int = EXAMPLE_PASSES) -> None:
        self.policy = policy or default_policy().change
        self.prior = example_prior(passes=passes, policy=self.policy)
        self.model = self.prior.model(policy=self.policy)
        self.threshold = example_threshold(self.prior, policy=self.policy)
        """The hold threshold a new colony started from the example prior would have."""

    def score(self, diff: str) -> ScoredChange:
        """Measure ``diff`` (a ValidationError naming ``diff`` if it is not one) and score it and its lines."""
        change = measure_diff(diff, policy=self.policy)
        lines = self.model.riskiest_lines(change, self.policy.reason_lines)
        text: dict[tuple[str, int, bool], str] = {}
        for file in parse_diff(diff):
            text |= {(file.path, no, False): t for no, t in file.deleted} | {(file.path, no, True): t for no, t in file.added}
        return ScoredChange(change, self.model.risk(change), lines, tuple(text.get((x.path, x.line, x.added), "") for x in lines))

    def assessment(self, scored: ScoredChange, *, risk: float, threshold: float, room: bool) -> ChangeAssessment:
        """What consequence memory would hand the gate for ``scored`` at ``risk`` and ``threshold``.

        As :meth:`colony.kernel.change_memory.ChangeMemory.assess`: above the threshold the change is held
        when the hold budget has ``room`` (else it passes with a warning), and it names its riskiest lines.
        """
        above = risk > threshold
        lines = scored.lines if above else ()
        return ChangeAssessment(
            risk, threshold, above and room, self.model.version, scored.change.record, lines, above and not room
        )
