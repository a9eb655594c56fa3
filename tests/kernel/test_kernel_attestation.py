"""The attested lifecycle through the kernel: proposal → verdict → authorization → receipt → outcome."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from colony.errors import AttestationError, ColonyError, ConfigError, ValidationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import GateDecision
from tests.conftest import make_proposal

KEY = "0123456789abcdef0123456789abcdef"


def _kernel(mode: str, **kw: object) -> ColonyKernel:
    kernel = ColonyKernel(ColonyKernelConfig(attestation_mode=mode, attestation_key=KEY, **kw))  # type: ignore[arg-type]
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    return kernel


@pytest.mark.parametrize("mode", ["optional", "required"])
def test_full_lifecycle_validates(mode: str) -> None:
    kernel = _kernel(mode)
    p = make_proposal()
    assert kernel.propose_action(p).decision is GateDecision.EXECUTE
    kernel.authorize_execution(p.proposal_id, "operator")
    kernel.record_execution_receipt(p.proposal_id, {"execution_id": "run-1", "exit_code": 0})
    record = kernel.record_attested_outcome(p, {"summary": "applied"}, tests_passed=True)
    assert record.trust_delta == pytest.approx(0.04)
    status = kernel.attestation_status()
    assert status is not None and status.valid and status.to_dict()["status"] == "valid"
    assert status.event_count == 6  # calibration, proposal, verdict, authorization, receipt, outcome


def test_required_mode_closes_the_ordinary_path() -> None:
    kernel = _kernel("required")
    p = make_proposal()
    kernel.propose_action(p)
    before = kernel.agent_profile("agent-a").to_dict()
    with pytest.raises(AttestationError, match="required"):
        kernel.record_outcome(p, {}, tests_passed=True)
    assert kernel.agent_profile("agent-a").to_dict() == before


def test_misuse_is_refused_and_leaves_the_chain_valid() -> None:
    kernel = _kernel("optional")
    hold = make_proposal(target="hot")
    kernel.record_outcome(make_proposal(agent_id="reporter", target="hot"), {}, tests_passed=False, observed=True)
    assert kernel.propose_action(hold).decision is GateDecision.HOLD
    with pytest.raises(AttestationError, match="EXECUTE"):
        kernel.authorize_execution(hold.proposal_id, "operator")

    ok = make_proposal(target="calm")
    kernel.propose_action(ok)
    with pytest.raises(AttestationError):
        kernel.record_execution_receipt(ok.proposal_id, {"execution_id": "x"})  # no authorization yet
    with pytest.raises(AttestationError):
        kernel.record_attested_outcome(ok, {}, tests_passed=True)  # no receipt
    kernel.authorize_execution(ok.proposal_id, "operator")
    with pytest.raises(AttestationError):
        kernel.authorize_execution(ok.proposal_id, "operator")  # consumed
    kernel.record_execution_receipt(ok.proposal_id, {"execution_id": "x"})
    kernel.record_attested_outcome(ok, {}, tests_passed=True)
    with pytest.raises(ColonyError):
        kernel.record_attested_outcome(ok, {}, tests_passed=True)  # a receipt admits one outcome
    with pytest.raises(AttestationError):
        kernel.propose_action(ok)  # the same proposal id again is a replay
    status = kernel.attestation_status()
    assert status is not None and status.valid, status.to_dict()


def test_re_proposal_after_hold_is_a_new_linked_proposal() -> None:
    kernel = _kernel("optional")
    kernel.record_outcome(make_proposal(agent_id="reporter", target="hot"), {}, tests_passed=False, observed=True)
    first = make_proposal(target="hot")
    assert kernel.propose_action(first).decision is GateDecision.HOLD
    for _ in range(10):
        kernel.tick()
    second = make_proposal(target="hot")
    assert kernel.propose_action(second, supersedes=first.proposal_id).decision is GateDecision.EXECUTE
    assert kernel.attestation_status().valid  # type: ignore[union-attr]


def test_disabled_mode() -> None:
    kernel = ColonyKernel()
    assert kernel.attestation_status() is None
    with pytest.raises(AttestationError, match="disabled"):
        kernel.authorize_execution("p", "a")
    with pytest.raises(ValidationError, match="supersedes"):
        kernel.propose_action(make_proposal(), supersedes="p0")


def test_file_ledger_needs_a_configured_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLONY_ATTESTATION_KEY", raising=False)
    monkeypatch.delenv("COLONY_ATTESTATION_ED25519_KEY", raising=False)
    with pytest.raises(ConfigError):
        ColonyKernel(ColonyKernelConfig(state_path=tmp_path / "s.sqlite", attestation_mode="optional"))


def test_file_ledger_survives_a_restart_and_detects_a_wrong_key(tmp_path: Path) -> None:
    state = tmp_path / "state.sqlite"
    script = textwrap.dedent(
        f"""
        from colony.kernel import ColonyKernel, ColonyKernelConfig
        from tests.conftest import make_proposal
        k = ColonyKernel(ColonyKernelConfig(state_path={str(state)!r}, attestation_mode="required", attestation_key={KEY!r}))
        k.calibrate_agent("agent-a", trust_score=0.5)
        p = make_proposal(proposal_id="p-restart")
        k.propose_action(p)
        k.authorize_execution(p.proposal_id, "operator")
        k.close()
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=Path(__file__).parents[2])
    kernel = ColonyKernel(ColonyKernelConfig(state_path=state, attestation_mode="required", attestation_key=KEY))
    assert kernel.attestation_status().valid  # type: ignore[union-attr]
    # the lifecycle continues where the other process left it
    kernel.record_execution_receipt("p-restart", {"execution_id": "e1"})
    kernel.record_attested_outcome(make_proposal(proposal_id="p-restart"), {}, tests_passed=True)
    assert kernel.attestation_status().valid  # type: ignore[union-attr]
    kernel.close()
    wrong = ColonyKernel(
        ColonyKernelConfig(state_path=state, attestation_mode="optional", attestation_key="another-key-of-32-bytes-long!!!!")
    )
    status = wrong.attestation_status()
    assert status is not None and status.to_dict()["status"] == "bad_signature"
    wrong.close()


def test_ed25519_kernel() -> None:
    from colony.attestation import Ed25519Signer

    raw = Ed25519Signer.generate().private_key_bytes()
    kernel = ColonyKernel(
        ColonyKernelConfig(attestation_mode="optional", attestation_key=raw.hex(), attestation_algorithm="ed25519")
    )
    kernel.calibrate_agent("agent-a", trust_score=0.5)
    kernel.propose_action(make_proposal())
    assert kernel.attestation_status().valid  # type: ignore[union-attr]
