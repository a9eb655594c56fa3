"""Security-sensitive patterns in Python source, found on the syntax tree (never by running it).

Each rule has an id in the style of the common linters (``S307`` eval, ``S602`` a shell
subprocess, ...), a severity and a message. The scan is a reviewer's checklist, not a
proof: a finding marks a line worth a second look.

>>> import ast
>>> [f.rule for f in scan_tree(ast.parse("eval(data)\\nimport pickle\\npickle.loads(b)"))]
['S307', 'S301']
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Final

__all__ = ["SecurityFinding", "scan_tree"]

# (dotted call name) -> (rule, severity, message)
_CALLS: Final[dict[str, tuple[str, str, str]]] = {
    "eval": ("S307", "error", "eval() runs arbitrary code; use ast.literal_eval or a parser"),
    "exec": ("S102", "error", "exec() runs arbitrary code"),
    "os.system": ("S605", "error", "os.system() starts a shell; use subprocess with an argument list"),
    "os.popen": ("S605", "error", "os.popen() starts a shell; use subprocess with an argument list"),
    "pickle.load": ("S301", "warning", "unpickling untrusted data runs code"),
    "pickle.loads": ("S301", "warning", "unpickling untrusted data runs code"),
    "marshal.loads": ("S302", "warning", "marshal data from an untrusted source is unsafe"),
    "hashlib.md5": ("S324", "warning", "MD5 is broken for security purposes"),
    "hashlib.sha1": ("S324", "warning", "SHA-1 is broken for security purposes"),
    "tempfile.mktemp": ("S306", "warning", "tempfile.mktemp() is racy; use mkstemp or NamedTemporaryFile"),
    "yaml.load": ("S506", "warning", "yaml.load() without SafeLoader can construct arbitrary objects"),
    "__import__": ("S-dynamic-import", "info", "dynamic import of a computed module name"),
}
_SUBPROCESS: Final = frozenset(
    {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen"}
)
_SECRET_NAME: Final = re.compile(r"(password|passwd|secret|token|api_?key|private_?key)$", re.IGNORECASE)
# values that name a secret rather than hold one: environment variable names, placeholders
_NOT_A_SECRET: Final = re.compile(r"^([A-Z][A-Z0-9_]*|<[^>]*>|\$\{?\w+\}?)$")
_SAFE_YAML_LOADERS: Final = frozenset({"SafeLoader", "CSafeLoader", "BaseLoader"})


@dataclass(frozen=True, slots=True)
class SecurityFinding:
    """One finding: rule id, severity, line and message."""

    rule: str
    severity: str
    line: int
    message: str


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _call(node: ast.Call) -> SecurityFinding | None:
    name = _dotted(node.func)
    if name in _SUBPROCESS and _is_true(_keyword(node, "shell")):
        return SecurityFinding("S602", "error", node.lineno, f"{name}(..., shell=True) passes a string to the shell")
    verify = _keyword(node, "verify")
    if isinstance(verify, ast.Constant) and verify.value is False:
        return SecurityFinding("S501", "error", node.lineno, f"{name or 'a call'} with verify=False skips TLS verification")
    if name == "yaml.load":
        loader = _keyword(node, "Loader") or (node.args[1] if len(node.args) > 1 else None)
        if loader is not None and _dotted(loader).rpartition(".")[2] in _SAFE_YAML_LOADERS:
            return None
    rule = _CALLS.get(name)
    if rule is None:
        return None
    if name in ("hashlib.md5", "hashlib.sha1"):
        used = _keyword(node, "usedforsecurity")
        if isinstance(used, ast.Constant) and used.value is False:
            return None
    return SecurityFinding(rule[0], rule[1], node.lineno, rule[2])


def _secret(node: ast.Assign | ast.AnnAssign) -> SecurityFinding | None:
    value = node.value
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.strip()):
        return None
    if _NOT_A_SECRET.match(value.value.strip()):
        return None
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        name = _dotted(target).rpartition(".")[2]
        if name and _SECRET_NAME.search(name):
            return SecurityFinding(
                "S105", "warning", node.lineno, f"{name} is assigned a hard-coded string (a secret in source?)"
            )
    return None


def scan_tree(tree: ast.AST) -> list[SecurityFinding]:
    """Every finding in ``tree``, in line order."""
    found: list[SecurityFinding] = []
    for node in ast.walk(tree):
        hit: SecurityFinding | None = None
        if isinstance(node, ast.Call):
            hit = _call(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            hit = _secret(node)
        if hit is not None:
            found.append(hit)
    return sorted(found, key=lambda f: (f.line, f.rule))
