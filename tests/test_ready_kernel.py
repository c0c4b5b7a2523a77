"""The student's Validate on a warm kernel (``course.kernelfork.ReadyKernelManager``, which a
student copy's ``nbgrader_config.py`` names) reports exactly what nbgrader's own Validate, on
a kernel started cold, reports: on Lab 1's solution, its stub and its seeded bugs, clicked
one after another in one process as the Jupyter server does."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
import pytest

from course import kernelfork
from course.grading import runner
from course.grading.authoring.export import export_student
from course.grading.proofs import mutation

from . import ROOT

pytestmark = pytest.mark.slow

LAB = "lab01_tool_loop"
COLD = "jupyter_client.manager.AsyncKernelManager"
READY = "course.kernelfork.ReadyKernelManager"


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("ready") / "copy"
    export_student(ROOT, target)
    return target


def _validate(copy: Path, notebook: Path, manager: str) -> dict:
    from jupyter_core.paths import jupyter_config_path
    from nbgrader.apps import NbGrader
    from nbgrader.validator import Validator

    app = NbGrader()
    app.config_file_paths.append([str(copy), *jupyter_config_path()])
    app.load_config_file()
    config = app.config
    assert config.Execute.kernel_manager_class == READY, "the copy names the warm manager"
    config.Execute.kernel_manager_class = manager
    return Validator(config=config).validate(str(notebook))


def test_a_warm_validate_reports_what_a_cold_one_does(copy, monkeypatch):
    monkeypatch.chdir(copy)
    monkeypatch.syspath_prepend(str(copy))
    release = runner.read_notebook(copy / "release" / LAB / f"{LAB}.ipynb")
    source = runner.read_notebook(ROOT / "source" / LAB / f"{LAB}.ipynb")
    bugs = mutation.load_mutants(ROOT / "tests" / "mutants" / f"{LAB}.py")
    chosen = {"solution": mutation.submission(release, source), "stub": release}
    for m in (bugs[0], bugs[len(bugs) // 2], bugs[-1]):
        chosen[m.name] = mutation.submission(release, source, m)
    forked_before = _forks()
    for name, nb in chosen.items():
        path = copy / "release" / LAB / f"{name}.ipynb"
        nbformat.write(nb, path)
        warm, cold = _validate(copy, path, READY), _validate(copy, path, COLD)
        assert warm == cold, name
        if name in ("solution", "stub"):
            assert ("failed" in warm) == (name == "stub"), (name, warm)
    assert _forks() - forked_before == len(chosen), "every warm click forked its kernel"


def _forks() -> int:
    """How many kernels this process's template has forked (its children, live or gone)."""
    held = kernelfork._template
    return getattr(held, "forked", 0) if held is not None else 0


def test_a_validate_whose_template_is_gone_starts_its_kernel_cold(copy, monkeypatch):
    monkeypatch.chdir(copy)
    monkeypatch.syspath_prepend(str(copy))
    release = runner.read_notebook(copy / "release" / LAB / f"{LAB}.ipynb")
    path = copy / "release" / LAB / "stub-again.ipynb"
    nbformat.write(release, path)
    monkeypatch.setattr(kernelfork, "local_template", _no_template)
    result = _validate(copy, path, READY)
    assert "failed" in result and result["failed"], result


def _no_template() -> kernelfork.TemplateProcess:
    raise kernelfork.TemplateError("no template here")


def test_the_template_ends_with_the_process_that_started_it(tmp_path):
    import subprocess

    code = ("from course import kernelfork; t = kernelfork.local_template(); "
            "print(t.proc.pid, flush=True)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    pid = int(proc.stdout.split()[-1])
    for _ in range(100):
        if not os.path.exists(f"/proc/{pid}") or _zombie(pid):
            break
        __import__("time").sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}") or _zombie(pid), "the template outlived it"


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z"
    except OSError:
        return True
