"""Who is calling: bearer-token verifiers for the MCP SDK, and the caller of the current tool call.

Authentication uses the SDK's own hooks: a :class:`~mcp.server.auth.provider.TokenVerifier`
turns a bearer token into an :class:`~mcp.server.auth.provider.AccessToken`, and the SDK
refuses requests without one (401). Two verifiers:

* :class:`RegistryTokenVerifier`: each agent has its own token (``colony agents add``);
  ``AccessToken.client_id`` is the agent's name, its scopes are :data:`AGENT_SCOPE`, plus
  :data:`OPERATOR_SCOPE` for operators;
* :class:`SharedTokenVerifier`: the single-user mode, one token for everyone; its holder
  is not bound to an agent (:data:`SHARED_SCOPE`) and has operator rights.

:func:`caller` answers "who is calling" inside a tool call, for HTTP (from the token) and
stdio (from ``--agent-id``) alike. It is the one public helper other layers (the gateway)
read identity from.

>>> caller()
Caller(agent_id=None, operator=True, mode='unbound')
>>> token_entropy_bits("0123456789abcdef" * 2)
128.0
"""

from __future__ import annotations

import contextvars
import hmac
import math
import os
import secrets
import string
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier

from colony.errors import ValidationError

if TYPE_CHECKING:
    from colony.mcp.agents import AgentRecord, AgentRegistry

__all__ = [
    "AGENT_SCOPE",
    "MIN_TOKEN_BITS",
    "MIN_TOKEN_SCORE",
    "OPERATOR_SCOPE",
    "SHARED_SCOPE",
    "TOKEN_ENV",
    "UNBOUND",
    "Caller",
    "RegistryTokenVerifier",
    "SharedTokenVerifier",
    "bound_caller",
    "caller",
    "check_token_strength",
    "guess_bits",
    "resolve_shared_token",
    "token_entropy_bits",
]

TOKEN_ENV: Final = "COLONY_MCP_TOKEN"
AGENT_SCOPE: Final = "colony:agent"
OPERATOR_SCOPE: Final = "colony:operator"
SHARED_SCOPE: Final = "colony:shared"
SHARED_CLIENT_ID: Final = "colony-shared-token"
MIN_TOKEN_BITS: Final = 128

Mode = Literal["unbound", "shared", "agent", "stdio"]


@dataclass(frozen=True, slots=True)
class Caller:
    """The identity behind one tool call.

    ``agent_id`` is the agent the credentials name (None: not bound to one agent, as in the
    single-user mode, where any ``agent_id`` argument is taken as given); ``operator`` says
    whether the admin tools (tick, pruning, calibration) are allowed; ``mode`` says where
    the identity came from: ``agent`` (a registered token), ``shared`` (the one shared
    token), ``stdio`` (``--agent-id``) or ``unbound`` (no credentials: in-process use).
    """

    agent_id: str | None
    operator: bool
    mode: Mode

    @classmethod
    def from_access_token(cls, token: AccessToken) -> Caller:
        """The caller an SDK access grant stands for (see the verifiers here)."""
        if SHARED_SCOPE in token.scopes:
            return cls(None, True, "shared")
        return cls(token.client_id, OPERATOR_SCOPE in token.scopes, "agent")


UNBOUND: Final = Caller(None, True, "unbound")
_current: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("colony_caller", default=None)


def caller() -> Caller:
    """Who is calling the current tool: the request's bearer token, else the server's binding, else :data:`UNBOUND`."""
    bound = _current.get()
    if bound is not None:
        return bound
    token = get_access_token()
    return UNBOUND if token is None else Caller.from_access_token(token)


@contextmanager
def bound_caller(who: Caller) -> Iterator[Caller]:
    """Make :func:`caller` answer ``who`` inside the block (the server does this around every tool call)."""
    reset = _current.set(who)
    try:
        yield who
    finally:
        _current.reset(reset)


# ----------------------------------------------------------------- verifiers
class SharedTokenVerifier(TokenVerifier):
    """The single-user mode: accept exactly one bearer token (compared in constant time)."""

    def __init__(self, token: str) -> None:
        self._token = check_token_strength(token).encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        """The shared grant for the configured token; None for any other."""
        if hmac.compare_digest(token.encode("utf-8", "replace"), self._token):
            return AccessToken(token=token, client_id=SHARED_CLIENT_ID, scopes=[SHARED_SCOPE, OPERATOR_SCOPE])
        return None


def access_token(token: str, agent: AgentRecord) -> AccessToken:
    """The SDK access grant for a registered agent: its name as ``client_id``, its role as scopes."""
    scopes = [AGENT_SCOPE, OPERATOR_SCOPE] if agent.role.value == "operator" else [AGENT_SCOPE]
    return AccessToken(token=token, client_id=agent.name, scopes=scopes)


class RegistryTokenVerifier(TokenVerifier):
    """Each agent's own token, looked up (by hash) in the agent registry on every request.

    A revoked token stops working at once; a newly added agent works without a restart.
    """

    def __init__(self, registry: AgentRegistry) -> None:
        self._registry = registry

    async def verify_token(self, token: str) -> AccessToken | None:
        """The agent's grant, or None for an unknown or revoked token."""
        agent = self._registry.authenticate(token)
        return None if agent is None else access_token(token, agent)


# ----------------------------------------------------------------- token strength
_ALPHABETS: Final = (
    frozenset(string.digits),
    frozenset(string.hexdigits.lower()),
    frozenset(string.hexdigits.upper() + string.digits),
    frozenset(string.ascii_uppercase + "234567="),
    frozenset(string.ascii_letters + string.digits),
    frozenset(string.ascii_letters + string.digits + "-_="),
    frozenset(string.ascii_letters + string.digits + "+/="),
)
_PRINTABLE: Final = 95


def token_entropy_bits(token: str) -> float:
    """An upper estimate of a token's entropy in bits.

    Length × log2 of the smallest common alphabet (hex, base32, base64, printable) holding
    every character, but at most three times what its distinct characters could carry, so
    short, repetitive or patterned tokens score low. Generated tokens (``secrets``) pass.

    >>> token_entropy_bits("a" * 64) < 128 <= token_entropy_bits(secrets.token_urlsafe(32))
    True
    """
    if not token:
        return 0.0
    chars = set(token)
    size = next((len(a) for a in _ALPHABETS if chars <= a), max(_PRINTABLE, len(chars)))
    per_char = math.log2(size) if size > 1 else 0.0
    return round(min(len(token), 3 * len(chars)) * per_char, 6)


#: the estimator's top score (zxcvbn: 4, "very unguessable"); a token must reach it as well as the bits
MIN_TOKEN_SCORE: Final = 4
_ESTIMATED_CHARS: Final = 72  # zxcvbn reads this many characters: enough for 128 bits, and bounded time


def guess_bits(token: str) -> float:
    """log2 of the guesses an attacker with dictionaries and patterns needs (zxcvbn), and never above the charset bound.

    zxcvbn finds dictionary words, l33t and reversed spellings, keyboard walks, sequences, repeats and dates; a
    character it does not recognise counts as one of 10 (it cannot know the alphabet), so a random token needs
    39 or more characters (``secrets.token_urlsafe(32)`` has 43). A token that repeats a shorter unit is scored by
    its unit (zxcvbn misses long repeats). Capped by :func:`token_entropy_bits`.

    >>> guess_bits("Password123!Password123!") < 128 <= guess_bits(secrets.token_urlsafe(32))
    True
    """
    return _estimate(token)[0]


def _estimate(token: str) -> tuple[float, int]:
    """(:func:`guess_bits`, zxcvbn's score 0-4) of ``token``'s shortest repeated unit, read up to :data:`_ESTIMATED_CHARS`."""
    from zxcvbn import zxcvbn  # loaded when a token is checked, not with every import of the server

    unit = token[: _period(token)][:_ESTIMATED_CHARS]
    result = zxcvbn(unit, max_length=_ESTIMATED_CHARS)
    bits = min(float(result["guesses_log10"]) * math.log2(10), token_entropy_bits(token))
    return round(bits, 6), int(result["score"])


def _period(token: str) -> int:
    """The length of the shortest unit ``token`` repeats (its own length when it repeats none)."""
    fail = [0] * len(token)  # the prefix function: the longest proper prefix that is also a suffix
    for i in range(1, len(token)):
        k = fail[i - 1]
        while k and token[i] != token[k]:
            k = fail[k - 1]
        fail[i] = k + (token[i] == token[k])
    return len(token) - fail[-1] if token else 0


def check_token_strength(token: str, *, field: str = TOKEN_ENV) -> str:
    """``token`` if it resists guessing: zxcvbn's top score and at least :data:`MIN_TOKEN_BITS` bits by :func:`guess_bits`.

    Anything else is a ValidationError that says how to generate a strong token (it never repeats the token).
    """
    if not isinstance(token, str) or not token:
        raise ValidationError(field, "must be a non-empty token")
    bits, score = _estimate(token)
    if bits < MIN_TOKEN_BITS or score < MIN_TOKEN_SCORE:
        raise ValidationError(
            field,
            f"is too weak (about {bits:.0f} bits against dictionary, keyboard and pattern guesses, score {score}/4; "
            f"at least {MIN_TOKEN_BITS} are needed, with score {MIN_TOKEN_SCORE}). Generate one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'",
        )
    return token


def resolve_shared_token() -> tuple[str, bool]:
    """The shared token from ``COLONY_MCP_TOKEN`` (checked for strength), or a new random one; and whether it was generated."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        return check_token_strength(token), False
    return secrets.token_urlsafe(32), True
