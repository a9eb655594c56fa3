"""Tokens that resist guessing (issue #27, item 5): a real estimator (zxcvbn) refuses weak shared tokens.

The old estimate only penalised repeated characters, so ``Password123!Password123!`` and friends passed.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading

import pytest

from colony.errors import ValidationError
from colony.mcp.agents import AgentRegistry
from colony.mcp.auth import MIN_TOKEN_BITS, check_token_strength, guess_bits

WEAK = [
    "Password123!Password123!",
    "0123456789abcdef0123456789abcdef",
    "changeme-changeme-changeme-changeme!",
    # keyboard walks, plain, shifted and diagonal
    "qwertyuiopasdfghjklzxcvbnm1234567890QWERTYUIOP",
    "zxcvbnmasdfghjklqwertyuiop!@#$%^&*()_+",
    "1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p!QAZ@WSX#EDC",
    # a passphrase said twice, and a long run of one letter
    "correct-horse-battery-staple-correct-horse-battery-staple",
    "x" * 5000,
]


@pytest.mark.parametrize("token", WEAK)
def test_weak_shared_tokens_are_refused_without_repeating_them(token: str) -> None:
    assert guess_bits(token) < MIN_TOKEN_BITS
    with pytest.raises(ValidationError, match=r"^COLONY_MCP_TOKEN: is too weak") as refused:
        check_token_strength(token)
    assert token not in str(refused.value) and "token_urlsafe(32)" in str(refused.value)


def test_generated_tokens_pass_the_estimator() -> None:
    for _ in range(100):
        token = secrets.token_urlsafe(32)
        assert guess_bits(token) >= MIN_TOKEN_BITS and check_token_strength(token) == token


def test_colony_agents_add_issues_distinct_tokens_that_pass_the_estimator() -> None:
    registry = AgentRegistry(sqlite3.connect(":memory:"), threading.RLock())
    tokens = [registry.add(f"agent-{i}").token for i in range(50)]
    assert len(set(tokens)) == 50
    for token in tokens:
        assert check_token_strength(token, field="token") == token
        assert registry.authenticate(token) is not None
