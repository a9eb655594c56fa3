"""Checks for the tiny package (collected through python_files = checks_*.py)."""

from tinypkg import clamp


def test_clamp_inside() -> None:
    assert clamp(0.5, 0.0, 1.0) == 0.5


def test_clamp_edges() -> None:
    assert clamp(-1.0, 0.0, 1.0) == 0.0
    assert clamp(2.0, 0.0, 1.0) == 1.0


def test_policy_loads() -> None:
    from tinypkg.config import default_policy

    assert default_policy().to_dict()["threshold"] == 0.75
