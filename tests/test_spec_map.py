"""Every graded cell names the sentence of the notebook's spec that its tests rely on.

See ``tests/spec_map.py``. The sentence must occur in the *released* notebook (what the
student reads), compared with whitespace collapsed. The damage test proves the check fails
when a graded cell has no entry or its sentence is not in the notebook.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from tests.spec_map import SPEC

from . import ROOT


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\\$", "$")).strip()


def graded_cells(nb: nbformat.NotebookNode) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")
            and c.cell_type == "code"]


def problems(assignment: str, nb: nbformat.NotebookNode,
             spec: dict[str, str | tuple[str, ...]]) -> list[str]:
    text = _flat("\n".join(c.source for c in nb.cells))
    out = [f"{assignment}: graded cell {gid!r} has no spec sentence in tests/spec_map.py"
           for gid in graded_cells(nb) if gid not in spec]
    out += [f"{assignment}: {gid!r} relies on a sentence the notebook does not contain: "
            f"{sentence!r}" for gid, said in spec.items()
            for sentence in ((said,) if isinstance(said, str) else said)
            if _flat(sentence) not in text]
    out += [f"{assignment}: {gid!r} is not a graded cell" for gid in spec
            if gid not in graded_cells(nb)]
    return out


RELEASED = {p.parent.name: p for p in sorted((ROOT / "release").glob("*/*.ipynb"))
            if p.parent.name in SPEC}


def test_the_map_covers_the_notebooks_it_was_written_for():
    assert set(RELEASED) == set(SPEC)


@pytest.mark.parametrize("assignment", sorted(RELEASED))
def test_every_graded_cell_names_its_spec_sentence(assignment):
    nb = nbformat.read(RELEASED[assignment], as_version=4)
    found = problems(assignment, nb, SPEC[assignment])
    assert not found, "\n".join(found)


def test_the_check_fails_on_a_missing_entry_and_a_missing_sentence():
    nb = nbformat.read(RELEASED["lab01_tool_loop"], as_version=4)
    spec = dict(SPEC["lab01_tool_loop"])
    del spec["step_cap"]
    spec["refusal_handled"] = "return a short note saying the model declined"
    found = problems("lab01_tool_loop", nb, spec)
    assert any("'step_cap' has no spec sentence" in p for p in found)
    assert any("'refusal_handled' relies on a sentence" in p for p in found)
