"""The grader converts syntax trees one at a time (:mod:`course.grading.syntax`): a Dask
worker grades on threads, and CPython 3.11's tree conversion is not thread-safe."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from course.grading import syntax

GRADING = Path(syntax.__file__).parent
#: quickrun's tree reading runs in its own single-threaded child process, which imports
#: nothing of the grader (it is started as a script).
EXEMPT = {GRADING / "syntax.py": "the lock itself",
          GRADING / "execution" / "quickrun.py": "a single-threaded child process"}


def _direct_conversions(path: Path) -> list[str]:
    """Calls in ``path`` that convert a syntax tree without the lock: ``ast.parse``,
    ``ast.literal_eval``, and ``compile`` of anything but source text."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                and f.value.id == "ast" and f.attr in {"parse", "literal_eval"}:
            out.append(f"{path.relative_to(GRADING)}:{node.lineno} ast.{f.attr}")
        elif isinstance(f, ast.Name) and f.id == "compile" and node.args:
            source = node.args[0]
            text = (isinstance(source, ast.Constant) and isinstance(source.value, str)) or (
                isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
                and source.func.attr == "read_text")
            if not text:
                out.append(f"{path.relative_to(GRADING)}:{node.lineno} compile")
    return out


def test_no_grading_module_converts_a_tree_without_the_lock():
    found = [hit for path in sorted(GRADING.rglob("*.py")) if path not in EXEMPT
             for hit in _direct_conversions(path)]
    assert not found, f"use course.grading.syntax for these: {found}"


def test_the_scan_finds_a_direct_call(tmp_path, monkeypatch):
    """The scan above is not blind: a module that calls ``ast.parse`` is named."""
    monkeypatch.setattr(f"{__name__}.GRADING", tmp_path)
    bad = tmp_path / "bad.py"
    bad.write_text("import ast\ntree = ast.parse('x')\ncode = compile(tree, 'f', 'exec')\n"
                   "ok = compile('x = 1', 'f', 'exec')\n")
    assert _direct_conversions(bad) == ["bad.py:2 ast.parse", "bad.py:3 compile"]


@pytest.mark.parametrize("name", ["parse", "literal_eval", "compile_tree"])
def test_each_conversion_holds_the_lock(monkeypatch, name):
    held = []
    tree = ast.parse("x = 1")
    real_parse, real_compile = ast.parse, compile

    def parse(*a, **k):
        held.append(syntax._LOCK.locked())
        return real_parse(*a, **k)

    def compile_(*a, **k):
        held.append(syntax._LOCK.locked())
        return real_compile(*a, **k)

    monkeypatch.setattr(ast, "parse", parse)  # literal_eval parses through ast.parse
    monkeypatch.setattr(syntax, "compile", compile_, raising=False)
    {"parse": lambda: syntax.parse("x = [1, (2, {3: 4})]"),
     "literal_eval": lambda: syntax.literal_eval("[1, (2, {3: 4})]"),
     "compile_tree": lambda: syntax.compile_tree(tree, "<t>")}[name]()
    assert held and all(held), held
