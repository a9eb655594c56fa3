"""``colony run-quick``: scripts, modules and notebooks by path or glob, with timeouts, in parallel."""

from __future__ import annotations

import json
from pathlib import Path

import psutil
import pytest

from tests.cli.conftest import Runner, write

# Each script announces itself, then waits for its partner's announcement. Run one after the
# other, the first waits in vain and fails; run in parallel, both meet and succeed.
RENDEZVOUS = """\
import pathlib, sys, time
me, other = sys.argv[1], sys.argv[2]
here = pathlib.Path("meet")
here.mkdir(exist_ok=True)
(here / me).touch()
for _ in range(100):
    if (here / other).exists():
        print(me, "met", other)
        sys.exit(0)
    time.sleep(0.05)
print(me, "waited alone")
sys.exit(1)
"""


def _pair(root: Path) -> None:
    write(root / "pair" / "left.py", RENDEZVOUS.replace("sys.argv[1], sys.argv[2]", '"left", "right"'))
    write(root / "pair" / "right.py", RENDEZVOUS.replace("sys.argv[1], sys.argv[2]", '"right", "left"'))


def test_parallel_targets_run_at_the_same_time(colony: Runner, mini: Path) -> None:
    _pair(mini)
    result = colony("run-quick", "pair/*.py", "--parallel", "--json", "--project", mini)
    out = result.json
    assert result.code == 0 and out["success"] is True and out["targets_run"] == 2
    assert [(r["target"], r["exit_code"], r["stdout"].strip()) for r in out["results"]] == [
        ("pair/left.py", 0, "left met right"),
        ("pair/right.py", 0, "right met left"),
    ]
    assert all(r["duration_ms"] > 0 for r in out["results"]) and out["total_duration_ms"] > 0


@pytest.mark.e2e  # waits on real child processes (a rendezvous that times out, a target killed past its timeout)
def test_sequential_targets_do_not_overlap_and_failures_are_named(colony: Runner, mini: Path) -> None:
    _pair(mini)
    result = colony("run-quick", "pair", "--json", "--project", mini)
    out = result.json
    assert result.code == 1 and out["success"] is False
    assert [r["exit_code"] for r in out["results"]] == [1, 0] and out["failed_targets"] == ["pair/left.py"]
    assert out["error"] == "Execution failed: 1 of 2 targets failed (pair/left.py exited 1)"


def test_args_module_targets_and_truncated_output(colony: Runner, mini: Path) -> None:
    out = colony("run-quick", "--json", "--project", mini, "scripts/hello.py", "--", "--verbose", "world").json
    assert out["results"][0]["stdout"] == "hello --verbose world\n"
    write(mini / "minipkg" / "loud.py", "import minipkg.core\nprint('x' * 10000)\nprint(minipkg.core.add(2, 3))\n")
    loud = colony("run-quick", "minipkg.loud", "--json", "--project", mini).json["results"][0]
    assert loud["target"] == "minipkg.loud" and loud["exit_code"] == 0
    assert loud["stdout"].startswith("[... ") and loud["stdout"].endswith("x\n5\n") and len(loud["stdout"]) < 4100


@pytest.mark.e2e  # waits on real child processes (a rendezvous that times out, a target killed past its timeout)
def test_a_target_past_its_timeout_is_killed_with_its_children(colony: Runner, mini: Path) -> None:
    write(
        mini / "slow.py",
        "import subprocess, sys, time\nchild = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        "print(child.pid, flush=True)\ntime.sleep(120)\n",
    )
    result = colony("run-quick", "slow.py", "--timeout", "2", "--json", "--project", mini)
    target = result.json["results"][0]
    assert result.code == 1 and target["timed_out"] is True and target["exit_code"] < 0
    assert "slow.py timed out after 2 s" in result.json["error"]
    child = int(target["stdout"].split()[0])
    assert _gone(child)


def _gone(pid: int) -> bool:
    """True once ``pid`` has exited (signals arrive asynchronously, so allow it a moment)."""
    try:
        proc = psutil.Process(pid)
        _, alive = psutil.wait_procs([proc], timeout=10)
        return not alive or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.e2e
def test_notebooks_run_with_papermill_and_scaffolded_notebooks_work(colony: Runner, tiny: Path) -> None:
    assert colony("new", "nbcheck", "--template", "notebook", "--project", tiny).code == 0
    result = colony("run-quick", "--json", "--project", tiny, "notebooks/01_nbcheck.ipynb", "--", "-p", "points", "4")
    assert result.code == 0, result.out
    record = json.loads((tiny / "output" / "notebooks" / "01_nbcheck.json").read_text(encoding="utf-8"))
    assert record["parameters"] == {"points": 4, "scale": 1.0} and record["results"]["y"] == [0.0, 1.0, 4.0, 9.0]
    assert (tiny / "output" / "run-quick" / "notebooks__01_nbcheck.ipynb").is_file()


def test_nothing_to_run_and_bad_options_are_bad_input(colony: Runner, mini: Path) -> None:
    for argv, message in (
        (["nothing/*.py"], "nothing runnable matches"),
        (["no.such.module"], "no such path or module"),
        (["README.md"], "neither a Python script nor a notebook"),
        (["scripts/hello.py", "--timeout", "0"], "timeout"),
    ):
        result = colony("run-quick", *argv, "--json", "--project", mini)
        assert result.code == 2 and message in result.json["error"] and result.json["error"].startswith("Execution failed: ")


def test_targets_get_an_allow_listed_environment_without_secrets(colony: Runner, mini: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # regression (issue 18, item 5): run-quick handed the whole environment, COLONY_* secrets included, to the script
    secrets = {
        "COLONY_AI_API_KEY": "sk-1",
        "COLONY_MCP_TOKEN": "tok-2",
        "COLONY_ATTESTATION_KEY": "00" * 32,
        "GITHUB_TOKEN": "gh-3",
        "AWS_SECRET_ACCESS_KEY": "aws-4",
        "JUPYTER_TOKEN": "jt-5",
        "SOME_PASSWORD": "pw-6",
        # issue 27, item 12: secret names under the allowed prefixes that the filter missed
        "JUPYTER_SERVER_PWD": "pwd-7",
        "LC_GPG_PASSPHRASE": "pass-8",
        "XDG_API_BEARER": "bearer-9",
        "XDG_SESSION_COOKIE": "cookie-10",
        "XDG_CREDENTIALS_FILE": "cred-11",
        "JUPYTER_AUTHORIZATION": "auth-12",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    write(mini / "scripts" / "env.py", "import json, os\nprint(json.dumps(dict(os.environ)))\n")
    result = colony("run-quick", "scripts/env.py", "--json", "--project", mini)
    assert result.code == 0, result.out
    seen = json.loads(result.json["results"][0]["stdout"])
    assert not set(secrets) & set(seen) and not any(v in json.dumps(seen) for v in secrets.values())
    assert seen["LC_ALL"] == "C.UTF-8" and seen["PATH"] and seen["PYTHONPATH"].split(":")[0] == str(mini)
