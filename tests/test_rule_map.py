"""Every sentence of a notebook's rule text (its API block, its Implement sections, the text
just above each answer cell) is a rule with its seeded bugs, or prose with a reason
(``tests/rule_map.py``); the damage tests prove the checks can fail."""

from __future__ import annotations

import re

import nbformat
import pytest

from course.grading.proofs.mutation import load_mutants
from course.grading.runner import assignments, read_notebook

from . import ROOT
from .rule_map import NOT_MAPPED, PROSE, RULES

_HEADING = re.compile(r"^#{1,6} ", re.M)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`(\"])")
_SECTION = re.compile(r"^(#{1,6} .*)$", re.M)
_IMPLEMENT = re.compile(r"#{1,6} Implement\b")


def _rule_text(nb: nbformat.NotebookNode) -> tuple[str, list[str]] | None:
    """The rule text with each code block replaced by ``\0N\0`` (so a ``# comment`` is no
    heading), and the code blocks; None when the notebook has no API block."""
    api, sections, last, codes = None, [], None, []

    def hold(match: re.Match) -> str:
        codes.append(match.group(0))
        return f"\0{len(codes) - 1}\0"

    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            if last is not None and last not in sections:
                sections.append(last)
            last = None
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"```.*?```", hold, cell.source, flags=re.S)
        for marker in ("**You implement**", "## You implement", "## The API you implement"):
            if api is None and marker in text:
                api = _HEADING.split(text.split(marker, 1)[1])[0]
        parts = _SECTION.split(text)
        sections += [body for head, body in zip(parts[1::2], parts[2::2], strict=True)
                     if _IMPLEMENT.match(head)]
        named = len(parts) > 1 and _IMPLEMENT.match(parts[-2])
        api_here = any(m in text for m in ("You implement", "API you implement"))
        last = None if named or api_here else parts[-1]
    return None if api is None else ("\n\n".join([api, *sections]), codes)


def api_block(nb: nbformat.NotebookNode) -> str | None:
    """The prose that states a notebook's rules, code blocks left out: its API block (what
    follows "**You implement**", or the "You implement" or "The API you implement" section,
    up to the next heading); every section whose heading starts with "Implement"; and the
    last section of the markdown cell just above each answer cell, where that is none of
    these (the text a student reads right before writing, which repeats or adds rules).
    None when the notebook has no API block."""
    found = _rule_text(nb)
    return None if found is None else re.sub(r"\0\d+\0", "", found[0])


def comment_rules(nb: nbformat.NotebookNode) -> list[str]:
    """The comments of the code blocks in that text, one per signature: a line's code, then
    ":", then its ``# ...`` comment with the comment lines under it, whitespace collapsed
    (``.guard() -> str | None: "stop": raise BudgetExceeded, on every call ...``); a comment
    standing alone is kept as its text."""
    found = _rule_text(nb)
    if found is None:
        return []
    text, codes = found
    out: list[str] = []
    for k in map(int, re.findall(r"\0(\d+)\0", text)):
        code, said = None, []
        for line in [*codes[k].splitlines()[1:-1], ""]:
            bare = line.strip()
            if bare.startswith("#"):
                said.append(bare.lstrip("#").strip())
                continue
            if said:
                joined = " ".join(" ".join(said).split())
                out.append(f"{code}: {joined}" if code else joined)
            mark = re.search(r"\s#\s?", line)
            head, comment = (line[:mark.start()], line[mark.end():]) if mark else (line, "")
            code = " ".join(head.split()) or None
            said = [comment.strip()] if comment.strip() else []
    return out


def sentences(block: str) -> list[str]:
    """``block`` as sentences: each row of a table is one (its ``|---|`` line is left
    out); the rest is split into paragraphs and bullets, whitespace collapsed, then at each
    sentence end followed by a capital, a backtick, a star or a bracket."""
    out = []
    rows = [ln.strip() for ln in block.splitlines() if ln.lstrip().startswith("|")]
    out += [" ".join(r.split()) for r in rows if not re.fullmatch(r"[|:\- ]+", r)]
    block = "\n".join(ln for ln in block.splitlines() if not ln.lstrip().startswith("|"))
    for para in re.split(r"\n\s*\n|\n(?=\* )", block):
        text = " ".join(para.split()).removeprefix("* ").strip()
        out += [s for s in _SENTENCE_END.split(text) if s] if text else []
    return out


def problems(name: str, nb: nbformat.NotebookNode, rules: dict[str, tuple[str, ...]],
             prose: dict[str, str], mutants: set[str]) -> list[str]:
    """What is wrong with one notebook's map, one line each."""
    block = api_block(nb)
    if block is None:
        return [f"{name}: no '**You implement**' block or 'The API you implement' section"]
    said = sentences(block) + comment_rules(nb)
    out = [f"{name}: a sentence of the API block or an Implement section is neither a rule "
           f"nor prose in tests/rule_map.py: {s!r}" for s in said
           if s not in rules and s not in prose]
    out += [f"{name}: tests/rule_map.py maps a sentence the notebook does not have: {s!r}"
            for s in [*rules, *prose] if s not in said]
    out += [f"{name}: the rule {s!r} names no seeded bug" for s, ms in rules.items() if not ms]
    out += [f"{name}: the rule {s!r} names {m!r}, which is not in tests/mutants/{name}.py"
            for s, ms in rules.items() for m in ms if m not in mutants]
    out += [f"{name}: {s!r} is both a rule and prose" for s in set(rules) & set(prose)]
    return out


def _release(name: str) -> nbformat.NotebookNode:
    return read_notebook(ROOT / "release" / name / f"{name}.ipynb")


def _mutant_names(name: str) -> set[str]:
    return {m.name for m in load_mutants(ROOT / "tests" / "mutants" / f"{name}.py")}


def test_every_notebook_is_mapped_or_listed_as_not_mapped():
    names = set(assignments(ROOT))
    assert set(RULES) | set(NOT_MAPPED) == names, sorted(names ^ (set(RULES) | set(NOT_MAPPED)))
    assert not set(RULES) & set(NOT_MAPPED)
    assert set(PROSE) <= set(RULES)


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_sentence_of_the_api_block_is_mapped(name):
    found = problems(name, _release(name), RULES[name], PROSE.get(name, {}),
                     _mutant_names(name))
    assert not found, "\n".join(found)


def test_the_map_check_fails_on_a_new_sentence_a_stale_one_and_a_missing_mutant():
    name = "lab01_tool_loop"
    nb = _release(name)
    rules, prose, mutants = dict(RULES[name]), dict(PROSE[name]), _mutant_names(name)
    assert not problems(name, nb, rules, prose, mutants)
    added = nbformat.from_dict(nb)
    added.cells[0].source = re.sub(r"Never\s+raise on a refusal\.",
                                   "Never raise on a refusal. Log every refusal.",
                                   added.cells[0].source)
    assert any("neither a rule nor prose" in p and "Log every refusal." in p
               for p in problems(name, added, rules, prose, mutants))
    rule = next(iter(rules))
    assert any("names no seeded bug" in p
               for p in problems(name, nb, {**rules, rule: ()}, prose, mutants))
    assert any("not in tests/mutants" in p
               for p in problems(name, nb, {**rules, rule: ("no_such_bug",)}, prose, mutants))
    assert any("does not have" in p
               for p in problems(name, nb, {**rules, "A sentence gone.": ("goal_reworded",)},
                                 prose, mutants))



@pytest.mark.parametrize("name, anchor", [
    ("tier2_langgraph", "Both tool nodes lead back to `agent`."),          # an Implement section
    ("lab05_semantic_cache", "Keep, per namespace, a matrix of unit vectors"),  # above an answer
])
def test_a_new_sentence_outside_the_api_block_is_found(name, anchor):
    nb = nbformat.from_dict(_release(name))
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and anchor in c.source)
    cell.source = cell.source.replace(anchor, "Cache every answer twice. " + anchor, 1)
    found = problems(name, nb, RULES[name], PROSE.get(name, {}), _mutant_names(name))
    assert any("neither a rule nor prose" in p and "Cache every answer twice." in p
               for p in found), found


def test_a_signature_comment_is_a_unit_and_a_new_one_is_found():
    name = "lab03_budget"
    nb = nbformat.from_dict(_release(name))
    units = comment_rules(nb)
    assert '.spent: dollars so far' in units
    assert any(u.startswith(".guard() -> str | None: \"stop\": raise BudgetExceeded") and
               u.endswith("otherwise None") for u in units), units  # its lines joined
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and ".spent" in c.source)
    cell.source = cell.source.replace("# dollars so far", "# dollars so far, rounded to cents")
    found = problems(name, nb, RULES[name], PROSE.get(name, {}), _mutant_names(name))
    assert any("neither a rule nor prose" in p and "rounded to cents" in p for p in found), found
