"""The two sides of ``course/``: the student side never needs the instructor side.

Students get ``course/`` without ``course/grading/`` (see ``course export``). So no
student-side module may import ``course.grading``, and a student copy must still import
every student-side module and run every release notebook.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.grading import export

#: ``python -m course`` is the instructor's entry point; in a student copy it says so and
#: exits (its ImportError fallback), so it is the one student-side file that names grading.
ENTRY_POINT = Path("course/__main__.py")


def _student_modules(root: Path) -> list[Path]:
    return [p for p in sorted((root / "course").rglob("*.py"))
            if p.relative_to(root).parts[:2] != ("course", "grading")
            and p.relative_to(root) != ENTRY_POINT]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = path.with_suffix("").parts
    top = len(parts) - 1 - parts[::-1].index("course")
    package = ".".join(parts[top:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return found


def test_no_student_side_module_imports_the_instructor_side(root):
    modules = _student_modules(root)
    assert len(modules) > 10
    for path in modules:
        bad = {m for m in _imports(path) if m == "course.grading" or
               m.startswith("course.grading.")}
        assert not bad, f"{path.relative_to(root)} imports {sorted(bad)}"


def test_the_import_scanner_sees_a_relative_import_of_grading(tmp_path):
    pkg = tmp_path / "course" / "worlds"
    pkg.mkdir(parents=True)
    bad = pkg / "sneaky.py"
    bad.write_text("from ..grading import markers\n")
    assert "course.grading.markers" in _imports(bad)


@pytest.mark.slow
def test_a_student_copy_runs_every_release_notebook(root, tmp_path):
    """Export, then execute each release notebook with the copy's own course/ first on the
    path: every cell before the first answer stub must run (the stubs raise
    NotImplementedError, which is the student's to replace)."""
    target = tmp_path / "student"
    export.export_student(root, target)
    assert not (target / "course" / "grading").exists()
    script = (
        "import sys, nbformat\n"
        "from nbclient import NotebookClient\n"
        "from nbclient.exceptions import CellExecutionError\n"
        "path = sys.argv[1]\n"
        "nb = nbformat.read(path, as_version=4)\n"
        "client = NotebookClient(nb, timeout=120, kernel_name='python3',\n"
        "    resources={'metadata': {'path': str(__import__('pathlib').Path(path).parent)}})\n"
        "try:\n"
        "    client.execute()\n"
        "except CellExecutionError as err:\n"
        "    if 'NotImplementedError' not in str(err):\n"
        "        raise\n"
        "import course\n"
        "assert course.__file__.startswith(sys.argv[2]), course.__file__\n"
        "print('ran', path)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(target), MPLBACKEND="Agg")
    notebooks = sorted((target / "release").rglob("*.ipynb"))
    assert notebooks
    for nb in notebooks:
        proc = subprocess.run([sys.executable, "-c", script, str(nb), str(target)],
                              cwd=target, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{nb.name}: {proc.stderr[-2000:]}"
