"""The student copy's ``dev``: it offers ``lab`` and ``validate`` only, installs nothing but
the project's dependencies (no apt-get, no editable install left behind), and the copy's
kernels talk over IPC, so no start prints the TCP warning."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest

from course.grading.authoring.export import export_student

from . import ROOT

TCP_WARNING = "Kernel is running over TCP"


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("copy") / "not" / "yet" / "there"  # parents made
    export_student(ROOT, target)
    return target


def _stand_in_venv(copy: Path) -> None:
    """A ``.venv`` that sees this environment's packages but not its install of ``course``
    (as the copy's own would), marked installed so ``dev`` does not go to PyPI."""
    venv = copy / ".venv"
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)],
                   check=True, timeout=120)
    inner = Path(sysconfig.get_path("purelib", vars={"base": str(venv)}))
    (inner / "outer.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    want = hashlib.sha256((copy / "pyproject.toml").read_bytes()).hexdigest()[:16]
    (venv / f".installed-{want}").touch()


def test_dev_offers_only_what_works_in_a_copy(copy):
    text = (copy / "dev").read_text(encoding="utf-8")
    for gone in ("apt-get", "demo", "pytest", "python -m course", "-e ."):
        assert gone not in text, f"the copy's dev still mentions {gone!r}"
    proc = subprocess.run(["bash", str(copy / "dev")], capture_output=True, text=True,
                          timeout=30, env={**os.environ, "PYTHON": "/nonexistent"})
    # no command: the usage, before anything is installed
    assert proc.returncode == 2, proc.stderr
    assert "./dev lab" in proc.stderr and "./dev validate NOTEBOOK" in proc.stderr
    assert "set -euo" not in proc.stderr and "creating .venv" not in proc.stderr


@pytest.mark.slow
def test_validate_runs_the_copys_own_course_over_ipc(copy):
    _stand_in_venv(copy)
    nb = "release/lab01_tool_loop/lab01_tool_loop.ipynb"
    proc = subprocess.run(["bash", str(copy / "dev"), "validate", nb], cwd=copy,
                          capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    # issue 28: an untouched notebook gets one line per unwritten function, not a test
    # listing, and the command fails so a script can use it
    assert proc.returncode == 1, out[-2000:]
    assert "`agent` is not written yet" in out, out[-2000:]
    assert "The following cell failed" not in out and "assert " not in out, out[-2000:]
    assert len(proc.stdout.splitlines()) < 20, proc.stdout
    assert TCP_WARNING not in out
    assert "No module named 'course'" not in out
    assert not list(copy.glob("*.egg-info")) and not (copy / "build").exists()


@pytest.mark.slow
def test_nbconvert_in_the_copy_starts_its_kernel_over_ipc(copy, tmp_path):
    path = tmp_path / "n.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")]), path)
    env = {**os.environ, "JUPYTER_CONFIG_PATH": str(copy / ".jupyter"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook",
                           "--execute", str(path), "--output", "out.ipynb"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-1000:]
    assert TCP_WARNING not in proc.stderr
