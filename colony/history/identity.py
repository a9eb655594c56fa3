"""Who wrote a commit: merged author aliases and the author's kind (agent, bot, human).

Aliases are merged with a union-find over two keys per raw identity: the e-mail address
(lower-cased; a GitHub ``<id>+<user>@users.noreply.github.com`` address also yields the
name key of ``<user>``) and the name folded to lower-case letters and digits. Placeholder
names and addresses (``Your Name``, ``you@example.com``, ...) never merge anything. A
merged person is called by their most frequent spelling (ties: the smallest string).

Author kind comes from the signature table (:mod:`colony.history.signatures`,
``colony/config/agents.yaml``): an author signature decides first (an agent's name suffix or
account, a bot account); else an agent's co-author trailer or message marker makes the commit
the agent's, working for the author; everyone else is ``human``.

An agent commit is proposed by the agent identity ``"<operator> (<tool>)"``: the agent
working for that person (the operator is the human author, or for an agent account the first
human co-author, else the account itself).

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

from colony.history.signatures import SignatureTable, load_signatures

__all__ = [
    "AliasIndex",
    "Authorship",
    "classify",
    "coauthor_trailers",
]

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


class AliasIndex:
    """Merged identities of one history (build once from every raw author and co-author)."""

    def __init__(self, parent: dict[str, str], canonical: dict[str, str], table: SignatureTable) -> None:
        self._parent = parent
        self._canonical = canonical
        self.table = table

    @classmethod
    def build(cls, identities: Iterable[tuple[str, str]], table: SignatureTable | None = None) -> AliasIndex:
        """Merge ``(name, email)`` pairs (agent suffixes are stripped first: the agent works for its operator)."""
        table = table if table is not None else load_signatures()
        parent: dict[str, str] = {}

        def find(k: str) -> str:
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k

        spellings: Counter[tuple[str, str]] = Counter()
        for raw_name, email in identities:
            name = table.strip(raw_name).strip()
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
        return cls(parent, canonical, table)

    def _root(self, key: str) -> str:
        while self._parent[key] != key:
            key = self._parent[key]
        return key

    def person(self, name: str, email: str) -> str:
        """The merged person's display name (agent suffix stripped)."""
        bare = self.table.strip(name).strip()
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
    signature: str | None = None


def coauthor_trailers(message: str) -> list[tuple[str, str]]:
    """``(name, email)`` of every ``Co-authored-by`` trailer line in a commit message."""
    return [(m.group(1).strip(), m.group(2).strip()) for m in _TRAILER.finditer(message)]


def classify(name: str, email: str, ids: AliasIndex, message: str = "") -> Authorship:
    """The proposer of a commit authored by ``name <email>`` with ``message`` (by ``ids``' signature table)."""
    table = ids.table
    trailers = coauthor_trailers(message)
    sig = table.author(name, email)
    if sig is not None and sig.kind == "bot":
        person = ids.person(name, email)
        return Authorship(person, person, "bot", None, sig.id)
    if sig is not None:
        if sig.author_suffix is not None:
            operator = ids.person(name, email)
        else:
            humans = [(n, e) for n, e in trailers if table.trailer(n, e) is None]
            operator = ids.person(*humans[0]) if humans else ids.person(name, email)
        return Authorship(f"{operator} ({sig.tool})", operator, "agent", sig.tool, sig.id)
    person = ids.person(name, email)
    sig = table.coauthor(trailers, message)
    if sig is not None:
        return Authorship(f"{person} ({sig.tool})", person, "agent", sig.tool, sig.id)
    return Authorship(person, person, "human", None)
