"""Output shapes of the colony MCP tools.

Each TypedDict becomes a tool's ``outputSchema`` (the SDK derives it with pydantic) and the
server validates every successful result against it, as the SDK client does again on
arrival. Unknown keys are forbidden, so a result can never drift from its schema unnoticed.
Every shape also declares the optional ``error`` field of the tool specification: an
error result carries ``{"error": message}`` and ``isError: true``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Field
from typing_extensions import TypedDict

__all__ = [
    "AttestationStatusOutput",
    "FalsifyOutput",
    "LedgerEventOutput",
    "ProfileOutput",
    "ProposeOutput",
    "PruningOutput",
    "QueryOutput",
    "RecordOutput",
    "StatusOutput",
]

_STRICT = ConfigDict(extra="forbid")

Decision = Literal["execute", "hold", "refuse"]
Role = Literal["sandbox", "repair_ant", "memory_ant", "dispatcher", "guard_ant"]
SignalTypeName = Literal["failure", "success", "risk", "need", "dependency", "human_priority"]
SourceName = Literal["test", "human", "agent", "security", "runtime"]
Severity = Literal["low", "medium", "high", "critical"]
AttackVectorName = Literal[
    "dependency_risk",
    "security_risk",
    "circular_architecture",
    "false_metric",
    "over_broad_module",
    "hidden_maintenance_cost",
    "no_rollback",
    "no_test_value",
    "scope_creep",
    "premature_abstraction",
]
ErrorText = Annotated[str, Field(description="Present only on an error result (isError), with all other fields absent.")]


class ProposeOutput(TypedDict):
    """The actuation gate's verdict on a proposal."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    decision: NotRequired[Annotated[Decision, Field(description="Gate verdict; HOLD and REFUSE are normal answers.")]]
    gate_score: NotRequired[Annotated[float, Field(description="Composite gate score in [0, 1]; higher is better.")]]
    reason: NotRequired[Annotated[str, Field(description="Human-readable explanation of the decision.")]]
    required_evidence: NotRequired[
        Annotated[list[str], Field(description="What to supply or change before re-submitting (empty on EXECUTE).")]
    ]
    budget_approved: NotRequired[Annotated[bool, Field(description="Whether the budget ledger cleared the estimate.")]]
    falsification_severity: NotRequired[
        Annotated[float, Field(description="Highest falsification finding weight in [0, 1]; 0 = no findings.")]
    ]
    proposal_id: NotRequired[
        Annotated[str, Field(description="Id of this proposal; pass it to colony_record_outcome to link the outcome.")]
    ]
    change: NotRequired[
        Annotated[
            dict[str, Any],
            Field(
                description="When the proposal carried a change: its learned risk, the hold budget's threshold, whether "
                "it was held (or the budget was spent), the model version, its size and the riskiest lines."
            ),
        ]
    ]
    error: NotRequired[ErrorText]


class RecordOutput(TypedDict):
    """The recorded consequence and the agent's trust afterwards."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    status: NotRequired[Annotated[Literal["recorded"], Field(description="Always 'recorded' on success.")]]
    consequence_id: NotRequired[Annotated[str, Field(description="UUID of the new consequence record.")]]
    proposal_id: NotRequired[Annotated[str, Field(description="The proposal the outcome was recorded for.")]]
    linked: NotRequired[
        Annotated[bool, Field(description="True if the report was linked to an earlier colony_propose_action proposal.")]
    ]
    trust_delta: NotRequired[Annotated[float, Field(description="Change applied to the agent's trust score.")]]
    trust_score: NotRequired[Annotated[float, Field(description="The agent's trust score after the update, in [0, 1].")]]
    role: NotRequired[Annotated[Role, Field(description="The agent's role after the update.")]]
    error: NotRequired[ErrorText]


class ProfileOutput(TypedDict):
    """An agent's trust profile."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    agent_id: NotRequired[str]
    role: NotRequired[Role]
    trust_score: NotRequired[Annotated[float, Field(description="Current trust score in [0, 1].")]]
    total_proposals: NotRequired[Annotated[int, Field(description="Distinct proposals seen from the agent.")]]
    accepted_proposals: NotRequired[Annotated[int, Field(description="Outcomes with tests passed and no repair needed.")]]
    consequence_history: NotRequired[Annotated[list[str], Field(description="Consequence ids, oldest first (bounded length).")]]
    last_updated: NotRequired[Annotated[float, Field(description="Unix time of the last trust update.")]]
    error: NotRequired[ErrorText]


class TopSignal(TypedDict):
    """One of the strongest traces in the field."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    key: Annotated[str, Field(description="Compound key '{location}:{signal_type}'.")]
    location: str
    signal_type: SignalTypeName
    strength: float
    updated_at: Annotated[float, Field(description="Unix time of the last deposit.")]


class PheromoneSummary(TypedDict):
    """A snapshot of the pheromone field."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    total_signals: Annotated[int, Field(description="Live traces in the field.")]
    top_signals: Annotated[list[TopSignal], Field(description="The ten strongest traces.")]


class StatusOutput(TypedDict):
    """A dashboard snapshot of the colony."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    tick_count: NotRequired[Annotated[int, Field(description="Ticks elapsed (persisted with --state).")]]
    pheromone_summary: NotRequired[PheromoneSummary]
    budget_usage: NotRequired[
        Annotated[
            dict[str, Any],
            Field(description="Per cost dimension {used, max} for the current budget period, plus period_start."),
        ]
    ]
    role_distribution: NotRequired[Annotated[dict[str, int], Field(description="Number of known agents per role.")]]
    recent_consequences: NotRequired[
        Annotated[list[dict[str, Any]], Field(description="The ten newest consequence records, newest first.")]
    ]
    pruning_candidates_count: NotRequired[
        Annotated[int, Field(description="Candidates found by the last colony_pruning_report.")]
    ]
    attestation_mode: NotRequired[
        Annotated[Literal["disabled", "optional", "required"], Field(description="The server's attestation mode.")]
    ]
    retention: NotRequired[
        Annotated[
            dict[str, int],
            Field(
                description="What the kernel has forgotten and holds: proposals_pruned, profiles_pruned, "
                "profiles_stored, and the policy's horizons proposal_ticks and profile_idle_ticks."
            ),
        ]
    ]
    error: NotRequired[ErrorText]


class Signal(TypedDict):
    """One pheromone trace."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    location: str
    signal_type: SignalTypeName
    strength: Annotated[float, Field(description="Current strength, >= 0.")]
    decay_rate: Annotated[
        float, Field(description="Evaporation multiplier relative to NORMAL decay (FAST 3.0, NORMAL 1.0, SLOW 0.2 by default).")
    ]
    decay_class: Annotated[Literal["fast", "normal", "slow"], Field(description="The trace's decay class.")]
    source: SourceName
    evidence: dict[str, Any]
    last_reinforced: Annotated[float, Field(description="Unix time of the last deposit.")]


class QueryOutput(TypedDict):
    """Signals found at a location."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    signals: NotRequired[Annotated[list[Signal], Field(description="Matching signals, strongest first; empty if none.")]]
    error: NotRequired[ErrorText]


class Finding(TypedDict):
    """One argument against executing a plan."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    claim: Annotated[str, Field(description="The assumption being attacked.")]
    attack_vector: AttackVectorName
    severity: Severity
    evidence: dict[str, Any]
    remediation: Annotated[str, Field(description="A concrete way to address the finding.")]


class FalsifyOutput(TypedDict):
    """The falsification report on a plan."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    plan_summary: NotRequired[str]
    findings: NotRequired[list[Finding]]
    verdict: NotRequired[
        Annotated[Literal["PASS", "CONDITIONAL", "FAIL"], Field(description="FAIL if any finding is HIGH or worse.")]
    ]
    required_changes: NotRequired[Annotated[list[str], Field(description="The findings' remediations, in order.")]]
    severity_score: NotRequired[
        Annotated[float, Field(description="Maximum finding weight (low .05, medium .20, high .45, critical 1.0); 0 = none.")]
    ]
    mean_severity: NotRequired[Annotated[float, Field(description="Mean finding weight, reported beside the maximum.")]]
    recommendation: NotRequired[
        Annotated[Decision, Field(description="execute below the hold threshold, refuse at or above the refuse threshold.")]
    ]
    error: NotRequired[ErrorText]


class Candidate(TypedDict):
    """A module nominated for archiving."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    module_path: Annotated[str, Field(description="Location derived from a DEPENDENCY trace.")]
    last_used: Annotated[float, Field(description="Unix time of the latest use.")]
    call_count: int
    duplicate_of: str | None
    reason: str
    confidence: Annotated[float, Field(description="Confidence in [0, 1].")]


class PruningOutput(TypedDict):
    """Advisory pruning candidates."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    candidates: NotRequired[Annotated[list[Candidate], Field(description="Candidates by confidence, highest first.")]]
    total_candidates: NotRequired[int]
    generated_at: NotRequired[Annotated[float, Field(description="Unix time of the report.")]]
    error: NotRequired[ErrorText]


class LedgerEventOutput(TypedDict):
    """An attestation ledger event written by a lifecycle step."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    proposal_id: NotRequired[str]
    event: NotRequired[
        Annotated[dict[str, Any], Field(description="The signed, hash-chained ledger event (event_id, event_hash, ...).")]
    ]
    error: NotRequired[ErrorText]


class AttestationStatusOutput(TypedDict):
    """The validation verdict on an attestation run."""

    __pydantic_config__ = _STRICT  # type: ignore[misc]

    valid: NotRequired[bool]
    status: NotRequired[Annotated[str, Field(description="'valid', 'empty', or the first problem's kind.")]]
    run_id: NotRequired[str]
    event_count: NotRequired[int]
    errors: NotRequired[Annotated[list[dict[str, Any]], Field(description="Every problem found, in ledger order.")]]
    last_valid_sequence: NotRequired[int]
    error: NotRequired[ErrorText]
