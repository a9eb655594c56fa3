"""The complexity measure and the security-pattern rules, rule by rule."""

from __future__ import annotations

import ast

import pytest

from colony.cli_tools.complexity import function_complexity
from colony.cli_tools.security_scan import scan_tree


def _complexity(source: str) -> dict[str, int]:
    return {f.name: f.complexity for f in function_complexity(ast.parse(source))}


def test_each_branch_point_adds_one_and_nested_scopes_count_alone() -> None:
    source = """
def straight():
    return 1

def loops(xs):
    for x in xs:
        while x:
            x -= 1
        else:
            pass
    return [y for y in xs if y if y > 1]

def handlers(x):
    try:
        assert x
    except ValueError:
        return 1 if x else 2
    match x:
        case 1:
            pass
        case _:
            pass
    return x and x or x

class K:
    def method(self, x):
        def inner(y):
            if y:
                return y
        return inner(x) if x else None
"""
    assert _complexity(source) == {
        "straight": 1,
        "loops": 1 + 1 + 1 + 1 + (1 + 2),  # for, while, while-else, comprehension for + two ifs
        "handlers": 1 + 1 + 1 + 1 + 2 + 2,  # assert, except, ternary, two cases, and/or
        "K.method": 2,
        "K.method.inner": 2,
    }


@pytest.mark.parametrize(
    ("source", "rules"),
    [
        ("eval(x)", ["S307"]),
        ("exec(x)", ["S102"]),
        ("import os\nos.popen(c)", ["S605"]),
        ("import subprocess\nsubprocess.Popen(c, shell=True)", ["S602"]),
        ("import subprocess\nsubprocess.run(['ls'], shell=False)", []),
        ("import requests\nrequests.get(u, verify=False)", ["S501"]),
        ("import yaml\nyaml.load(s)", ["S506"]),
        ("import yaml\nyaml.load(s, Loader=yaml.SafeLoader)", []),
        ("import yaml\nyaml.load(s, yaml.CSafeLoader)", []),
        ("import hashlib\nhashlib.md5(b)", ["S324"]),
        ("import hashlib\nhashlib.sha1(b, usedforsecurity=False)", []),
        ("import tempfile\ntempfile.mktemp()", ["S306"]),
        ("import marshal\nmarshal.loads(b)", ["S302"]),
        ("m = __import__(name)", ["S-dynamic-import"]),
        ("db_password = 'hunter2'", ["S105"]),
        ("self.api_key: str = 'abc'", ["S105"]),
        ("API_TOKEN = 'COLONY_API_TOKEN'", []),
        ("secret = '<fill me>'", []),
        ("password = ''", []),
        ("PASS = 'pass'", []),
    ],
)
def test_security_rules(source: str, rules: list[str]) -> None:
    assert [f.rule for f in scan_tree(ast.parse(source))] == rules
