"""Who wrote a commit: merged author aliases and the author's kind (agent, bot, human).

Aliases are merged with a union-find over two keys per raw identity: the e-mail address
(lower-cased; a GitHub ``<id>+<user>@users.noreply.github.com`` address also yields the
name key of ``<user>``) and the name folded to lower-case letters and digits. Placeholder
names and addresses (``Your Name``, ``you@example.com``, ...) never merge anything. A
merged person is called by their most frequent spelling (ties: the smallest string).

Author kind, by the data README's rules:

* ``agent``: aider's agent appends `` (aider)`` to the author name; OpenHands marks agent
  co-authorship with the exact trailer ``Co-authored-by: openhands <openhands@all-hands.dev>``,
  and the agent's own account (author name ``openhands``) authors some commits itself;
* ``bot``: dependabot-style accounts (a name ending in ``[bot]``, or dependabot, renovate,
  github-actions, pre-commit-ci);
* ``human``: everyone else.

An agent commit is proposed by the agent identity ``"<operator> (<tool>)"``: the agent
working for that person (the operator is the human author or the first human co-author).

>>> ids = AliasIndex.build([("Paul Gauthier", "paul@aider.chat"), ("paul-gauthier", "69695708+paul-gauthier@users.noreply.github.com"),
...                         ("Paul Gauthier (aider)", "paul@aider.chat")])
>>> ids.person("paul-gauthier", "69695708+paul-gauthier@users.noreply.github.com")
'Paul Gauthier'
>>> classify("Paul Gauthier (aider)", "", ids).agent_id
'Paul Gauthier (aider)'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "AGENT_TRAILER",
    "AliasIndex",
    "Authorship",
    "classify",
    "coauthor_trailers",
]

AIDER_SUFFIX = " (aider)"
AGENT_TRAILER = "Co-authored-by: openhands <openhands@all-hands.dev>"
_AGENT_ACCOUNTS = frozenset({"openhands"})
_BOT = re.compile(r"\[bot\]$|dependabot|renovate|github-actions|pre-commit-ci", re.IGNORECASE)
_PLACEHOLDER_NAMES = frozenset({"yourname", "contributor", "unknown", "root", "user", "none"})
_PLACEHOLDER_EMAILS = frozenset({"you@example.com", "user@example.com", "root@localhost", "none", ""})
_NOREPLY = re.compile(r"^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$")
_TRAILER = re.compile(r"^co-authored-by:\s*(.+?)\s*<([^>]*)>\s*$", re.IGNORECASE | re.MULTILINE)


def _name_key(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


def _keys(name: str, email: str) -> list[str]:
    keys = []
    nk = _name_key(name)
    if nk and nk not in _PLACEHOLDER_NAMES:
        keys.append("n:" + nk)
    em = email.strip().casefold()
    if em not in _PLACEHOLDER_EMAILS:
        keys.append("e:" + em)
        m = _NOREPLY.match(em)
        if m and _name_key(m.group(1)) not in _PLACEHOLDER_NAMES:
            keys.append("n:" + _name_key(m.group(1)))
    return keys


def _strip_agent(name: str) -> str:
    return name[: -len(AIDER_SUFFIX)] if name.endswith(AIDER_SUFFIX) else name


class AliasIndex:
    """Merged identities of one history (build once from every raw author and co-author)."""

    def __init__(self, parent: dict[str, str], canonical: dict[str, str]) -> None:
        self._parent = parent
        self._canonical = canonical

    @classmethod
    def build(cls, identities: Iterable[tuple[str, str]]) -> AliasIndex:
        """Merge ``(name, email)`` pairs (agent suffixes are stripped first: the agent works for its operator)."""
        parent: dict[str, str] = {}

        def find(k: str) -> str:
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k

        spellings: Counter[tuple[str, str]] = Counter()
        for raw_name, email in identities:
            name = _strip_agent(raw_name).strip()
            keys = _keys(name, email) or ["raw:" + name]
            for k in keys:
                parent.setdefault(k, k)
            root = find(keys[0])
            for k in keys[1:]:
                other = find(k)
                if other != root:
                    lo, hi = sorted((root, other))
                    parent[hi] = lo
                    root = lo
            spellings[(keys[0], name)] += 1
        counts: dict[str, Counter[str]] = {}
        for (key, name), n in spellings.items():
            counts.setdefault(find(key), Counter())[name] += n
        canonical = {root: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for root, c in counts.items()}
        return cls(parent, canonical)

    def _root(self, key: str) -> str:
        while self._parent[key] != key:
            key = self._parent[key]
        return key

    def person(self, name: str, email: str) -> str:
        """The merged person's display name (agent suffix stripped)."""
        bare = _strip_agent(name).strip()
        keys = _keys(bare, email) or ["raw:" + bare]
        key = keys[0]
        if key not in self._parent:
            return bare
        return self._canonical.get(self._root(key), bare)

    @property
    def people(self) -> int:
        """Number of merged persons."""
        return len(self._canonical)

    def aliases(self) -> dict[str, list[str]]:
        """Canonical name → sorted raw keys merged into it (for the manifest)."""
        out: dict[str, list[str]] = {}
        for key in self._parent:
            if key.startswith(("n:", "e:", "raw:")):
                out.setdefault(self._canonical[self._root(key)], []).append(key)
        return {name: sorted(keys) for name, keys in sorted(out.items())}


@dataclass(frozen=True, slots=True)
class Authorship:
    """A commit's proposer as the kernel sees it."""

    agent_id: str
    operator: str
    kind: str
    tool: str | None


def coauthor_trailers(message: str) -> list[tuple[str, str]]:
    """``(name, email)`` of every ``Co-authored-by`` trailer line in a commit message."""
    return [(m.group(1).strip(), m.group(2).strip()) for m in _TRAILER.finditer(message)]


def classify(name: str, email: str, ids: AliasIndex, message: str = "") -> Authorship:
    """The proposer of a commit authored by ``name <email>`` with ``message``."""
    if _BOT.search(name):
        person = ids.person(name, email)
        return Authorship(person, person, "bot", None)
    if name.endswith(AIDER_SUFFIX):
        operator = ids.person(name, email)
        return Authorship(f"{operator} (aider)", operator, "agent", "aider")
    trailer = AGENT_TRAILER.casefold() in (line.strip().casefold() for line in message.splitlines())
    if _name_key(name) in _AGENT_ACCOUNTS:
        humans = [(n, e) for n, e in coauthor_trailers(message) if _name_key(n) not in _AGENT_ACCOUNTS and not _BOT.search(n)]
        operator = ids.person(*humans[0]) if humans else "openhands"
        return Authorship(f"{operator} (openhands)", operator, "agent", "openhands")
    person = ids.person(name, email)
    if trailer:
        return Authorship(f"{person} (openhands)", person, "agent", "openhands")
    return Authorship(person, person, "human", None)
