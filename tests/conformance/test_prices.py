"""Every price the course ships agrees with one cited table, ``course.prices``, and that table
agrees with the pricing pages.

The expected figures below are typed in from the pages (the ``search`` tool's docs corpus),
not read from ``course.prices``:
* https://platform.claude.com/docs/en/about-claude/pricing, "Model pricing" (base input, 5m
  cache writes, 1h cache writes, cache hits and refreshes, output; USD per MTok), and its
  multipliers: 5-minute writes 1.25x, 1-hour writes 2x, reads 0.1x the base input price;
* https://platform.claude.com/docs/models/opus-5/overview ($5 / $25, $6.25, $10, $0.50);
* https://platform.claude.com/docs/models/sonnet-5/overview ($2 / $10, $2.50, $4, $0.20);
* https://platform.claude.com/docs/models/haiku-4-5/overview ($1 / $5) and the pricing page
  row for Claude Haiku 4.5 ($1.25, $2, $0.10).

Then every price table the notebooks and worlds carry is found and compared: the ``PRICE``
and ``PER_MTOK`` dicts of the authoring scripts, the world modules' per-MTok constants, and
the prose price lines (``claude-sonnet-5 \\$2/\\$10``), each of which must cite the pricing page
within a few lines.
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

from course import prices

ROOT = Path(__file__).resolve().parents[2]
AUTHORING = sorted((ROOT / "authoring").glob("*/*.py"))
WORLDS = sorted((ROOT / "course" / "worlds").glob("*.py"))

# (input, output, 5m write, 1h write, read), USD per MTok, as the pages print them
DOCUMENTED = {
    # source: models/opus-5/overview, "Pricing"; pricing page, row "Claude Opus 5"
    "claude-opus-5": (5.00, 25.00, 6.25, 10.00, 0.50),
    # source: models/sonnet-5/overview, "Pricing"
    "claude-sonnet-5": (2.00, 10.00, 2.50, 4.00, 0.20),
    # source: models/haiku-4-5/overview ($1 / $5); pricing page, row "Claude Haiku 4.5"
    "claude-haiku-4-5": (1.00, 5.00, 1.25, 2.00, 0.10),
}
PRICE_LINE = re.compile(
    r"(claude-(?:opus-5|sonnet-5|haiku-4-5))\W{0,3}\\?\$([\d.]+)(?:/\\?\$([\d.]+)|/MTok)")
CITE = "platform.claude.com/docs/en/about-claude/pricing"


def test_the_cited_table_is_the_pages_table():
    # source: the pages listed in the module docstring
    assert set(prices.PER_MTOK) == set(DOCUMENTED)
    for model, (inp, out, w5, w1, read) in DOCUMENTED.items():
        got = prices.PER_MTOK[model]
        assert (got["input"], got["output"], got["write_5m"], got["write_1h"], got["read"]) == (
            inp, out, w5, w1, read), model


def test_the_cache_columns_are_the_documented_multipliers():
    # source: pricing page: 5-minute writes 1.25x, 1-hour writes 2x, reads 0.1x base input
    assert (prices.CACHE_WRITE_5M, prices.CACHE_WRITE_1H, prices.CACHE_READ) == (1.25, 2.0, 0.1)
    for model, (inp, _out, w5, w1, read) in DOCUMENTED.items():
        assert math.isclose(inp * 1.25, w5) and math.isclose(inp * 2, w1), model
        assert math.isclose(inp * 0.1, read), model


def test_per_token_rates_and_an_unknown_model():
    assert prices.per_token("claude-sonnet-5") == {"in": 2 / 1_000_000, "out": 10 / 1_000_000}
    with pytest.raises(KeyError, match="claude-opus-9"):
        prices.per_token("claude-opus-9")


def _dict_tables(path: Path) -> list[tuple[int, str, dict]]:
    """Every ``PRICE = {...}`` / ``PER_MTOK = {...}`` in a script: (line, name, value)."""
    names = {"OPUS": "claude-opus-5", "SONNET": "claude-sonnet-5", "HAIKU": "claude-haiku-4-5"}
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("PRICE", "PER_MTOK")
                and isinstance(node.value, ast.Dict)):
            continue
        expr = ast.Expression(node.value)
        value = eval(compile(expr, str(path), "eval"), {"__builtins__": {}}, dict(names))
        out.append((node.lineno, node.targets[0].id, value))
    return out


def _tables():
    for path in AUTHORING:
        for line, name, value in _dict_tables(path):
            yield pytest.param(path, line, name, value,
                               id=f"{path.parent.name}:{line}:{name}")


@pytest.mark.parametrize("path, line, name, value", list(_tables()))
def test_every_dict_price_table_agrees(path, line, name, value):
    source_line = path.read_text(encoding="utf-8").splitlines()[line - 1]
    if set(value) <= {"input", "output"}:        # one model's rates; the comment names it
        (model,) = re.findall(r"claude-(?:opus-5|sonnet-5|haiku-4-5)", source_line)
        value = {model: {"in": value["input"], "out": value["output"]}}
    per_mtok = name == "PER_MTOK"
    for model, rates in value.items():
        want = prices.PER_MTOK[model]
        scale = 1 if per_mtok else 1_000_000
        assert math.isclose(rates["in"] * scale, want["input"]), (path.name, line, model)
        assert math.isclose(rates["out"] * scale, want["output"]), (path.name, line, model)


def test_the_notebooks_carry_price_tables():
    # the test above must have something to check
    found = {p.parent.name for p in AUTHORING if _dict_tables(p)}
    assert {"lab03_budget", "lab07_cache_audit", "lab10_token_accounting"} <= found


def test_the_worlds_per_mtok_constants_agree():
    from course.worlds import loops
    assert (loops.USD_PER_MTOK_IN, loops.USD_PER_MTOK_OUT) == (
        prices.PER_MTOK["claude-opus-5"]["input"], prices.PER_MTOK["claude-opus-5"]["output"])


def _price_lines():
    for path in AUTHORING + WORLDS:
        lines = path.read_text(encoding="utf-8").splitlines()
        for k, line in enumerate(lines):
            # a markdown sentence may wrap between the model name and its price
            joined = line + " " + (lines[k + 1].lstrip("# ") if k + 1 < len(lines) else "")
            for m in PRICE_LINE.finditer(joined):
                if m.start() < len(line):
                    yield pytest.param(path, k + 1, m.group(1), m.group(2), m.group(3),
                                       id=f"{path.parent.name}/{path.name}:{k + 1}:{m.group(1)}")


@pytest.mark.parametrize("path, line, model, inp, out", list(_price_lines()))
def test_every_price_in_the_prose_agrees(path, line, model, inp, out):
    want = prices.PER_MTOK[model]
    assert float(inp) == want["input"], f"{path.name}:{line}: {model} input ${inp}/MTok"
    if out is not None:
        assert float(out) == want["output"], f"{path.name}:{line}: {model} output ${out}/MTok"


def test_the_prose_has_price_lines_to_check():
    assert len(list(_price_lines())) >= 6


@pytest.mark.parametrize("path", [p for p in AUTHORING if "**Prices**" in p.read_text(
    encoding="utf-8")], ids=lambda p: p.parent.name)
def test_every_price_table_cites_the_pricing_page_next_to_it(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    for k, line in enumerate(lines):
        if "**Prices**" in line:
            near = "\n".join(lines[k:k + 6])
            assert CITE in near, f"{path.name}:{k + 1}: cite the pricing page next to the table"
