"""The student notebooks refer only to what a student has.

A student gets release/ and the support package (``course export``): no seed documents,
no lecture notes, no repository paths. A reference to anything else is a dead end for
them. Each pattern ships with the damage that proves it can fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from . import ROOT

RELEASED = sorted((ROOT / "release").glob("*/*.ipynb"))

# Each pattern names one kind of reference a student cannot follow.
FORBIDDEN = {
    "a source document by its name": re.compile(r"\bCode Lab \d+|\bseed \d{3}\b", re.I),
    "the chapter": re.compile(r"\bthe chapter\b|\bchapter's\b", re.I),
    "the lecture notes": re.compile(r"\blecture notes\b", re.I),
    "an exercise of another document": re.compile(r"\bSelf-check exercise \d", re.I),
    "a session the student did not have": re.compile(r"\bLast time you\b", re.I),
    "a repository path": re.compile(
        r"(?<![\w.])(bench|scripts|tests|authoring|source|solutions|autograded)/\w"
        r"|course/grading\b"),
}
# "Lab N" may only name an earlier notebook. The lecture comes first, the capstone last.
ORDER = {"lecture04_context_cache": 0, "capstone_integrated_loop": 99,
         "tier2_langgraph": 8}  # the framework tier follows Labs 1-5 and 8
LAB = re.compile(r"\bLab (\d+)\b")


def notebook_text(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n".join(c.source for c in nb.cells)


def references(assignment: str, text: str) -> list[str]:
    """Every reference in ``text`` that a student of ``assignment`` cannot follow."""
    found = [f"{what}: {m.group(0)!r}" for what, rx in FORBIDDEN.items()
             for m in rx.finditer(text)]
    own = ORDER.get(assignment, int(m.group(1)) if (m := re.match(r"lab(\d+)", assignment))
                    else 0)
    found += [f"a later notebook by number: {m.group(0)!r} (say 'a later notebook')"
              for m in LAB.finditer(text) if int(m.group(1)) > own]
    return found


def test_there_are_released_notebooks():
    assert RELEASED, "no notebooks under release/; run `python -m course release`"


@pytest.mark.parametrize("path", RELEASED, ids=[p.parent.name for p in RELEASED])
def test_release_refers_only_to_what_students_have(path):
    found = references(path.parent.name, notebook_text(path))
    assert not found, f"{path.relative_to(ROOT)} refers to material students lack:\n" + \
        "\n".join(found)


@pytest.mark.parametrize("damage", [
    "As Code Lab 14 shows", "a correction to the chapter", "the lecture notes say",
    "Self-check exercise 2.", "Last time you used agents", "see bench/semantic_cache_lookup.py",
    "run scripts/record_embeddings.py", "Prompt caching (Lab 7)",
])
def test_each_kind_of_reference_is_caught(damage):
    assert references("lab05_semantic_cache", f"Some text. {damage} More text.")


def test_earlier_notebooks_and_the_support_package_are_fine():
    text = "Lab 1 built the loop; `course/worlds/weather.py` is in the support package."
    assert references("lab05_semantic_cache", text) == []
