"""Only signed fields count (issue #27, item 3): at run time, and in what ``colony ledger verify`` holds the kernel to.

The attacks, each on a real kernel state file edited through a second SQLite connection:

* ``UPDATE attestation_events SET parent_event_id = NULL`` on an authorization let the live kernel authorize the same
  EXECUTE verdict a second time (the lookup for "already authorized" read the unsigned index column);
* edits of the unsigned ``proposal_id``, ``parent_event_id`` or ``decision`` columns alone passed verify;
* verify never looked at the kernel's own tables: flipping ``consequences.tests_passed`` went unnoticed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from colony.cli import main
from colony.errors import AttestationError
from colony.kernel import ColonyKernel, ColonyKernelConfig
from colony.models import ActionProposal, GateDecision
from tests.conftest import make_proposal

KEY = "5a" * 32


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state.sqlite"


@pytest.fixture
def kernel(state: Path) -> Iterator[ColonyKernel]:
    k = ColonyKernel(ColonyKernelConfig(state_path=state, attestation_mode="optional", attestation_key=KEY))
    k.calibrate_agent("agent-a", trust_score=0.5)
    yield k
    k.close()


@pytest.fixture
def sql(state: Path, kernel: ColonyKernel) -> Iterator[sqlite3.Connection]:
    """A second connection to the kernel's state file (the attacker's), in autocommit."""
    conn = sqlite3.connect(state, isolation_level=None)
    yield conn
    conn.close()


def _executed(kernel: ColonyKernel, target: str = "pkg.mod") -> ActionProposal:
    p = make_proposal(target=target)
    assert kernel.propose_action(p).decision is GateDecision.EXECUTE
    return p


def _completed(kernel: ColonyKernel, *, passed: bool = True, target: str = "pkg.mod") -> ActionProposal:
    p = _executed(kernel, target)
    kernel.authorize_execution(p.proposal_id, "operator")
    kernel.record_execution_receipt(p.proposal_id, {"execution_id": f"exe-{p.proposal_id}"})
    kernel.record_attested_outcome(p, {"summary": "applied"}, tests_passed=passed)
    return p


def _verify(state: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    key = state.with_suffix(".key")
    key.write_text(KEY)
    code = main(["ledger", "verify", str(state), "--hmac-key-file", str(key)])
    return code, capsys.readouterr().out


def _event_id(sql: sqlite3.Connection, event_type: str) -> str:
    return str(sql.execute("SELECT event_id FROM attestation_events WHERE event_type = ?", (event_type,)).fetchone()[0])


def test_a_nulled_parent_link_does_not_let_the_live_kernel_authorize_twice(
    kernel: ColonyKernel, sql: sqlite3.Connection, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = _executed(kernel)
    kernel.authorize_execution(p.proposal_id, "operator")
    sql.execute("UPDATE attestation_events SET parent_event_id = NULL WHERE event_type = 'execution_authorization'")
    with pytest.raises(AttestationError, match="its parent_event_id column says None") as info:
        kernel.authorize_execution(p.proposal_id, "operator")
    assert info.value.status == "bad_index"
    count = sql.execute("SELECT count(*) FROM attestation_events WHERE event_type = 'execution_authorization'").fetchone()
    assert count == (1,)  # the verdict was authorized once
    code, report = _verify(state, capsys)
    assert code == 1 and "bad_index" in report and _event_id(sql, "execution_authorization") in report


@pytest.mark.parametrize(
    ("column", "event_type", "value"),
    [
        ("proposal_id", "gate_verdict", "p-other"),
        ("parent_event_id", "gate_verdict", "evt-nowhere"),
        ("decision", "proposal", "execute"),
    ],
)
def test_an_edited_index_column_is_refused_at_run_time_and_named_by_verify(
    kernel: ColonyKernel,
    sql: sqlite3.Connection,
    state: Path,
    capsys: pytest.CaptureFixture[str],
    column: str,
    event_type: str,
    value: str,
) -> None:
    p = _executed(kernel)
    assert _verify(state, capsys)[0] == 0
    sql.execute(f"UPDATE attestation_events SET {column} = ? WHERE event_type = ?", (value, event_type))
    with pytest.raises(AttestationError) as info:
        kernel.authorize_execution(p.proposal_id, "operator")
    assert info.value.status in {"bad_index", "unauthorized_link"}  # a moved proposal_id hides the verdict: no verdict
    assert sql.execute("SELECT count(*) FROM attestation_events WHERE event_type = 'execution_authorization'").fetchone() == (0,)
    code, report = _verify(state, capsys)
    assert code == 1
    line = next(line for line in report.splitlines() if line.lstrip().startswith("seq") and "bad_index" in line)
    assert _event_id(sql, event_type) in line and f"its {column} column says {value!r}" in line


def test_verify_holds_the_consequences_table_to_the_signed_outcome(
    kernel: ColonyKernel, sql: sqlite3.Connection, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = _completed(kernel, passed=True)
    kernel.record_outcome(make_proposal(agent_id="reporter", target="other"), {}, tests_passed=False)  # not attested
    assert _verify(state, capsys)[0] == 0
    cid = sql.execute("SELECT consequence_id FROM consequences WHERE proposal_id = ?", (p.proposal_id,)).fetchone()[0]
    sql.execute("UPDATE consequences SET tests_passed = 0 WHERE proposal_id = ?", (p.proposal_id,))
    code, report = _verify(state, capsys)
    assert code == 1 and "INVALID (bad_record)" in report
    assert f"consequences row {cid!r} (proposal {p.proposal_id!r}): tests_passed is 0, the signed outcome says 1" in report


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        ("UPDATE consequences SET proposal_id = 'p-elsewhere'", "proposal_id is 'p-elsewhere', the signed outcome's is"),
        ("UPDATE consequences SET attested = 0", "attested is 0, but its outcome is signed"),
        ("UPDATE consequences SET agent_id = 'mallory'", "agent_id is 'mallory', the signed proposal's is 'agent-a'"),
        ("DELETE FROM consequences", "is gone: the signed outcome records it"),
        ("UPDATE proposals SET target = 'pkg.elsewhere'", "target is 'pkg.elsewhere', the signed proposal's is 'pkg.mod'"),
    ],
)
def test_verify_names_every_kernel_row_that_disagrees_with_the_signed_events(
    kernel: ColonyKernel, sql: sqlite3.Connection, state: Path, capsys: pytest.CaptureFixture[str], edit: str, says: str
) -> None:
    _completed(kernel)
    assert _verify(state, capsys)[0] == 0
    sql.execute(edit)
    code, report = _verify(state, capsys)
    assert code == 1 and "bad_record" in report and says in report, report


def test_an_unattested_outcome_marked_attested_is_reported(
    kernel: ColonyKernel, sql: sqlite3.Connection, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = _executed(kernel)
    kernel.record_outcome(p, {}, tests_passed=True)  # the ordinary path: attested = 0, nothing signed
    assert _verify(state, capsys)[0] == 0
    sql.execute("UPDATE consequences SET attested = 1")
    code, report = _verify(state, capsys)
    assert code == 1 and "is marked attested, but this run signs no outcome for it" in report


def test_a_busy_valid_state_file_verifies(kernel: ColonyKernel, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(3):
        _completed(kernel, passed=i % 2 == 0, target=f"pkg.m{i}")
    kernel.record_outcome(make_proposal(agent_id="other", target="pkg.x"), {}, tests_passed=False)
    status = kernel.attestation_status()
    assert status is not None
    assert status.valid, status.to_dict()
    code, report = _verify(state, capsys)
    assert code == 0, report


def _edit(spec: str, statement: str) -> None:
    """Run one statement on the state behind ``spec`` from outside the kernel (a file, or a database URL)."""
    if spec.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(spec, autocommit=True) as pg:
            pg.execute(statement)
        return
    conn = sqlite3.connect(spec, isolation_level=None)
    conn.execute(statement)
    conn.close()


def test_the_nulled_parent_attack_fails_on_both_backends(state_spec: str) -> None:
    k = ColonyKernel(ColonyKernelConfig(state_path=state_spec, attestation_mode="optional", attestation_key=KEY))
    try:
        k.calibrate_agent("agent-a", trust_score=0.5)
        p = _executed(k)
        k.authorize_execution(p.proposal_id, "operator")
        _edit(state_spec, "UPDATE attestation_events SET parent_event_id = NULL WHERE event_type = 'execution_authorization'")
        with pytest.raises(AttestationError) as info:
            k.authorize_execution(p.proposal_id, "operator")
        assert info.value.status == "bad_index"
        status = k.attestation_status()
        assert status is not None and status.status == "bad_index"
    finally:
        k.close()
