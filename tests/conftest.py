"""Shared test setup: the network guard is on for the whole session, and one small class
graded by ``course grade`` serves every test that reads what that command leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from course import netguard
from course.grading import build, mutation, runner
from course.grading.cli import main

from . import ROOT


@pytest.fixture(autouse=True, scope="session")
def offline():
    """No test reaches the network: any non-loopback connection raises NetworkBlocked."""
    netguard.install()
    yield
    netguard.uninstall()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory) -> tuple[Path, int, str]:
    """Lab 1's solution, stub and first seeded bug, graded by ``course grade -j 2`` on a
    scratch course whose gradebook it must rebuild: (course folder, exit code, printout).

    Tests may add files (feedback, reports elsewhere) but must not regrade it."""
    lab = "lab01_tool_loop"
    course = runner.scratch_course(ROOT, [lab], base=tmp_path_factory.mktemp("class"))
    build.generate(course, lab)
    mutation.write_samples(course, mutation.samples(ROOT, lab, "first"))
    (course / "gradebook.db").unlink()  # grade must rebuild what it needs
    with pytest.MonkeyPatch.context() as mp:
        lines: list[str] = []
        mp.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(map(str, a))))
        code = main(["--course-dir", str(course), "grade", "-j", "2"])
    return course, code, "\n".join(lines)
