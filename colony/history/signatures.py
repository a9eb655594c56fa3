"""Agent and bot signatures as data: ``colony/config/agents.yaml``, validated with pydantic, extendable.

A signature names a tool (``aider``, ``claude_code``, ``dependabot`` ...) and its kind (``agent`` or
``bot``) and matches a commit by its author name (a literal suffix or a regex), author e-mail, one
``Co-authored-by`` trailer (name and/or e-mail) or a message marker. Patterns are case-insensitive;
names and e-mails must match whole. A user's own files come first (see history.yaml's ``agents.extra``).

>>> table = load_signatures()
>>> table.author("Paul Gauthier (aider)", "paul@aider.chat").id
'aider.author_suffix'
>>> table.author("claude[bot]", "x@users.noreply.github.com").kind
'agent'
>>> table.coauthor([("Claude", "noreply@anthropic.com")], "").tool
'claude_code'
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from colony.config import config_file
from colony.config.loading import read_yaml
from colony.config.validation import config_error
from colony.errors import ConfigError

__all__ = ["AGENTS_FILE", "Signature", "SignatureTable", "load_signatures"]

AGENTS_FILE = "agents.yaml"
_PATTERNS = ("author_name", "author_email", "coauthor_name", "coauthor_email", "message")


class Signature(BaseModel):
    """One way a tool shows itself in a commit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    kind: Literal["agent", "bot"]
    author_suffix: str | None = None
    author_name: str | None = None
    author_email: str | None = None
    coauthor_name: str | None = None
    coauthor_email: str | None = None
    message: str | None = None

    @field_validator(*_PATTERNS)
    @classmethod
    def _regex(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                re.compile(v)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from None
        return v

    @model_validator(mode="after")
    def _one_side(self) -> Signature:
        author = [f for f in ("author_suffix", "author_name", "author_email") if getattr(self, f) is not None]
        other = [f for f in ("coauthor_name", "coauthor_email", "message") if getattr(self, f) is not None]
        if not author and not other:
            raise ValueError("needs at least one matcher: author_suffix, " + ", ".join(_PATTERNS))
        if author and other:
            raise ValueError(f"matches the author ({', '.join(author)}) or the message ({', '.join(other)}), not both")
        if self.author_suffix is not None and not self.author_suffix.strip():
            raise ValueError("author_suffix must not be blank")
        return self

    @property
    def on_author(self) -> bool:
        """Matched on the commit's author (else on a co-author trailer or the message)."""
        return any(getattr(self, f) is not None for f in ("author_suffix", "author_name", "author_email"))

    def _full(self, field: str, value: str) -> bool:
        pattern = getattr(self, field)
        return pattern is None or re.fullmatch(pattern, value.strip(), re.IGNORECASE) is not None

    def matches_author(self, name: str, email: str) -> bool:
        """Whether the author ``name <email>`` carries this signature."""
        if not self.on_author:
            return False
        if self.author_suffix is not None and not name.casefold().endswith(self.author_suffix.casefold()):
            return False
        return self._full("author_name", name) and self._full("author_email", email)

    def matches_coauthor(self, name: str, email: str) -> bool:
        """Whether the trailer ``Co-authored-by: name <email>`` carries this signature."""
        if self.coauthor_name is None and self.coauthor_email is None:
            return False
        return self._full("coauthor_name", name) and self._full("coauthor_email", email)

    def matches_message(self, trailers: Sequence[tuple[str, str]], message: str) -> bool:
        """Whether a co-author trailer or the message carries this (non-author) signature."""
        if self.on_author:
            return False
        if self.message is not None and re.search(self.message, message, re.IGNORECASE | re.MULTILINE) is None:
            return False
        if self.coauthor_name is None and self.coauthor_email is None:
            return True
        return any(self.matches_coauthor(n, e) for n, e in trailers)


class SignatureTable(BaseModel):
    """The validated signature table: an ordered list, the first match deciding."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1]
    signatures: list[Signature]

    @field_validator("signatures")
    @classmethod
    def _unique(cls, v: list[Signature]) -> list[Signature]:
        seen: set[str] = set()
        dup = sorted({s.id for s in v if s.id in seen or seen.add(s.id)})  # type: ignore[func-returns-value]
        if dup:
            raise ValueError(f"duplicate signature ids {dup}")
        return v

    @cached_property
    def suffixes(self) -> tuple[str, ...]:
        """Every agent author-name suffix (stripped to find the operator)."""
        return tuple(s.author_suffix for s in self.signatures if s.author_suffix and s.kind == "agent")

    def strip(self, name: str) -> str:
        """``name`` without an agent suffix."""
        for suffix in self.suffixes:
            if name.casefold().endswith(suffix.casefold()):
                return name[: -len(suffix)]
        return name

    def author(self, name: str, email: str) -> Signature | None:
        """The first author signature that ``name <email>`` matches."""
        return next((s for s in self.signatures if s.matches_author(name, email)), None)

    def trailer(self, name: str, email: str) -> Signature | None:
        """The first signature a ``Co-authored-by`` trailer matches (an author account named in a trailer counts)."""
        return next((s for s in self.signatures if s.matches_coauthor(name, email) or s.matches_author(name, email)), None)

    def coauthor(self, trailers: Sequence[tuple[str, str]], message: str) -> Signature | None:
        """The first agent signature the co-author trailers or the message carry."""
        return next((s for s in self.signatures if s.kind == "agent" and s.matches_message(trailers, message)), None)


def _read(path: Path) -> list[object]:
    data = read_yaml(path, "agents")
    if not isinstance(data, dict):
        raise ConfigError("agents", "must be a mapping", path=str(path))
    items = data.get("signatures")
    if not isinstance(items, list):
        raise ConfigError("agents.signatures", "must be a list of signatures", path=str(path))
    try:
        SignatureTable.model_validate(data)
    except ValidationError as exc:
        raise config_error(exc, source=str(path), prefix="agents") from None
    return items


def load_signatures(extra: Sequence[str | os.PathLike[str]] = ()) -> SignatureTable:
    """The packaged (or ``$COLONY_CONFIG``'s) table, after every file of ``extra`` (theirs come first)."""
    items: list[object] = []
    for path in [*extra, config_file(AGENTS_FILE)]:
        items.extend(_read(Path(path)))
    try:
        return SignatureTable.model_validate({"schema_version": 1, "signatures": items})
    except ValidationError as exc:
        raise config_error(exc, source=", ".join(str(p) for p in extra), prefix="agents") from None
