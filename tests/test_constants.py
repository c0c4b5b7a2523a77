"""A price is stated once: ``course/prices.py``. The worlds and the judges read it from there,
so a price change is one edit that ``course verify`` then proves.

What is checked: every module of ``course/`` (but the table itself) and every judge of every
notebook holds no price table of its own, that is no dict, tuple or list that puts a model id
beside that model's input and output rates (per million tokens or per token). Not checked:
the notebooks' own ``PRICE`` cells and the students' code (mutants, blind samples), which
write their tables as the lab asks; ``tests/conformance/test_prices.py`` holds those to the
table. Worked figures (a call's dollars) stay written out in judges and tests: they are the
oracle the rule is checked against, not a constant to share.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from course import prices
from course.grading.authoring import markers
from course.grading.runner import read_notebook

from . import ROOT


def _numbers(node: ast.AST) -> list[float]:
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, int | float) \
                and not isinstance(n.value, bool):
            out.append(float(n.value))
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):  # 5 / 1_000_000
            try:
                out.append(float(ast.literal_eval(n.left)) / float(ast.literal_eval(n.right)))
            except (ValueError, TypeError, ZeroDivisionError, SyntaxError):
                pass
    return out


def _priced(model: str, node: ast.AST) -> bool:
    """Whether ``node`` holds both of ``model``'s rates, at either scale."""
    r = prices.PER_MTOK[model]
    got = _numbers(node)
    return all(any(math.isclose(g, want * scale) for g in got for scale in (1, 1e-6))
               for want in (r["input"], r["output"]))


def price_tables(source: str) -> list[int]:
    """The lines of ``source`` where a display pairs a model id with its own two rates."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            pairs = [(k, v) for k, v in zip(node.keys, node.values, strict=True) if k is not None]
        elif isinstance(node, ast.Tuple | ast.List):
            pairs = [(e, node) for e in node.elts]
        else:
            continue
        for key, value in pairs:
            if (isinstance(key, ast.Constant) and key.value in prices.PER_MTOK
                    and _priced(key.value, value)):
                found.append(node.lineno)
                break
    return sorted(set(found))


def _judges() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "source").glob("*/*.ipynb")):
        for cell in read_notebook(path).cells:
            if cell.cell_type == "code" and "### JUDGE" in cell.source:
                gid = cell.metadata.get("nbgrader", {}).get("grade_id", "?")
                out.append((f"{path.parent.name} judge of cell {gid}",
                            markers.test_parts(cell.source, where=gid).judge))
    return out


def _modules() -> list[Path]:
    table = ROOT / "course" / "prices.py"
    return [p for p in sorted((ROOT / "course").rglob("*.py")) if p != table]


def test_no_module_of_course_keeps_a_price_table_of_its_own():
    bad = [f"{p.relative_to(ROOT)}:{line}" for p in _modules()
           for line in price_tables(p.read_text(encoding="utf-8"))]
    assert not bad, f"read prices from course.prices (PER_MTOK, per_token): {bad}"


def test_no_judge_keeps_a_price_table_of_its_own():
    judges = _judges()
    assert len(judges) > 100  # every notebook's judges were found
    bad = [f"{where}, line {line} of the judge" for where, judge in judges
           for line in price_tables(judge)]
    assert not bad, f"import PER_MTOK from course.prices in the judge: {bad}"


@pytest.mark.parametrize("snippet", [
    'for _m, (_pin, _pout) in {"claude-opus-5": (5, 25), "claude-sonnet-5": (2, 10)}.items():'
    "\n    pass",
    'for _m, _in, _out in [("claude-opus-5", 5, 25), ("claude-haiku-4-5", 1, 5)]:\n    pass',
    'PRICE = {"claude-sonnet-5": {"in": 2 / 1_000_000, "out": 10 / 1_000_000}}',
    'RATES = {"claude-opus-5": (5e-6, 25e-6)}',
])
def test_a_price_table_is_found(snippet):
    assert price_tables(snippet) == [1]


@pytest.mark.parametrize("snippet", [
    "for _m, _rates in PER_MTOK.items():\n    pass",
    'row = ("worked", "claude-opus-5", 130_000, 1_000)',        # a model id beside counts
    'want = {"claude-opus-5": 0.0584}',                         # a worked figure, not a rate
    'pair = ("claude-haiku-4-5", 5, 25)',                        # another model's rates
])
def test_what_is_not_a_price_table(snippet):
    assert price_tables(snippet) == []



def constants_defined(judge: str) -> list[str]:
    """The upper-case names a judge assigns at its top level (a constant of its own)."""
    return [t.id for node in ast.parse(judge).body if isinstance(node, ast.Assign | ast.AnnAssign)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name) and t.id.isupper()]


def test_no_judge_defines_a_constant_of_its_own():
    # A message or limit the notebook's first cell names lives in its world, and the judge
    # imports it from there: one text to change, not a copy in every judge.
    bad = [f"{where}: {name}" for where, judge in _judges()
           for name in constants_defined(judge)]
    assert not bad, f"import these from the notebook's world module instead: {bad}"


def test_a_constant_in_a_judge_is_found():
    assert constants_defined('NUDGE = ("You have made this exact tool call "\n"again.")\n'
                             "_n = 3\nEND: str = '__end__'\n") == ["NUDGE", "END"]
    assert constants_defined("from course.worlds.graphs import NUDGE\n_halt = NUDGE\n") == []
