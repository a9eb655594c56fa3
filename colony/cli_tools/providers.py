"""AI code-generation providers behind one small interface, chosen by name from a registry.

The built-in provider speaks the OpenAI-compatible chat-completions API over HTTP and is
configured only by environment variables:

* ``COLONY_AI_BASE_URL`` — e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8000/v1``;
* ``COLONY_AI_MODEL`` — the model name;
* ``COLONY_AI_API_KEY`` — a bearer token (optional: local servers often need none);
* ``COLONY_AI_TIMEOUT`` — seconds per request (default 60).

A provider returns text; nothing it returns is ever executed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import httpx

from colony.errors import ColonyError, ValidationError

__all__ = [
    "PROVIDERS",
    "Completion",
    "OpenAICompatibleProvider",
    "Provider",
    "ProviderError",
    "ProviderNotConfigured",
    "get_provider",
    "register_provider",
]

DEFAULT_TIMEOUT_S: Final = 60.0


class ProviderError(ColonyError):
    """The provider was unreachable, refused the credentials, limited the rate or answered nonsense."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class ProviderNotConfigured(ProviderError):
    """No provider settings were found in the environment."""


@dataclass(frozen=True, slots=True)
class Completion:
    """What a provider answered: the text, the model that wrote it and the tokens it used."""

    text: str
    model: str
    tokens_used: int


class Provider(Protocol):
    """Anything that turns a system and a user message into a completion."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    def complete(self, system: str, prompt: str, *, max_tokens: int) -> Completion: ...


@dataclass(frozen=True, slots=True)
class OpenAICompatibleProvider:
    """The chat-completions endpoint at ``base_url`` (``POST {base_url}/chat/completions``)."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = DEFAULT_TIMEOUT_S
    name: str = "openai"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> OpenAICompatibleProvider:
        """Settings from ``COLONY_AI_*``; raises ProviderNotConfigured when the URL or model is missing."""
        env = os.environ if env is None else env
        base = env.get("COLONY_AI_BASE_URL", "").strip()
        model = env.get("COLONY_AI_MODEL", "").strip()
        if not base or not model:
            raise ProviderNotConfigured(
                "no AI provider configured (set COLONY_AI_BASE_URL and COLONY_AI_MODEL, and COLONY_AI_API_KEY if the "
                "endpoint needs one)"
            )
        if not base.startswith(("http://", "https://")):
            raise ValidationError("COLONY_AI_BASE_URL", "must be an http:// or https:// URL", value=base)
        try:
            timeout = float(env.get("COLONY_AI_TIMEOUT", "") or DEFAULT_TIMEOUT_S)
        except ValueError:
            raise ValidationError("COLONY_AI_TIMEOUT", "must be a number of seconds") from None
        return cls(base.rstrip("/"), model, env.get("COLONY_AI_API_KEY", "").strip() or None, timeout)

    def complete(self, system: str, prompt: str, *, max_tokens: int) -> Completion:
        """One chat completion; HTTP and protocol failures become ProviderError."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
            "max_tokens": max_tokens,
            "temperature": 0,
        }
        try:
            response = httpx.post(f"{self.base_url}/chat/completions", json=body, headers=headers, timeout=self.timeout)
        except httpx.TimeoutException:
            raise ProviderError(f"provider did not answer within {self.timeout:g} s") from None
        except httpx.HTTPError as exc:
            raise ProviderError(f"provider unavailable: {type(exc).__name__}: {exc}") from None
        if response.status_code in (401, 403):
            raise ProviderError(f"provider authentication failed (HTTP {response.status_code})", status=response.status_code)
        if response.status_code == 429:
            raise ProviderError("provider rate limit exceeded (HTTP 429); retry later", status=429)
        if response.status_code >= 400:
            raise ProviderError(f"provider error HTTP {response.status_code}: {response.text[:200]}", status=response.status_code)
        return _parse(response, self.model)


def _parse(response: httpx.Response, requested_model: str) -> Completion:
    try:
        data: Any = response.json()
        text = data["choices"][0]["message"]["content"]
        usage = data.get("usage") or {}
        tokens = int(usage.get("total_tokens") or 0)
        model = str(data.get("model") or requested_model)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ProviderError(f"provider answered in an unexpected shape: {type(exc).__name__}: {exc}") from None
    if not isinstance(text, str):
        raise ProviderError("provider answered without message content")
    return Completion(text, model, tokens)


PROVIDERS: dict[str, Callable[[], Provider]] = {}


def register_provider(name: str, factory: Callable[[], Provider]) -> None:
    """Make ``factory`` available under ``name`` (a factory raises ProviderNotConfigured when unset)."""
    PROVIDERS[name] = factory


def get_provider(name: str) -> Provider:
    """The configured provider called ``name``."""
    factory = PROVIDERS.get(name)
    if factory is None:
        raise ValidationError("provider", f"unknown provider {name!r}; known: {', '.join(sorted(PROVIDERS))}", value=name)
    return factory()


register_provider("openai", lambda: OpenAICompatibleProvider.from_env())
