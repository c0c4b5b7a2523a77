"""Shared test setup: the network guard is on for the whole session, one small class graded
by ``course grade`` serves every test that reads what that command leaves, and the test
files that build an expensive fixture run on one worker when pytest-xdist spreads the suite
(``./dev test`` runs ``-n 2 --dist loadgroup``)."""

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


#: Test files whose module- or session-scoped fixtures grade a class or a course: each group
#: runs on one xdist worker, so no fixture is built twice.
XDIST_GROUPS = {
    "test_integrity": "integrity",
    "test_sandbox_attacks": "attacks",
    "test_hostile": "hostile",
    "test_exchange": "exchange",
    "test_cli": "graded_class",
    "test_html_report": "graded_class",
    "test_dask_grading": "graded_class",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        group = XDIST_GROUPS.get(item.module.__name__.rsplit(".", 1)[-1] if item.module else "")
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
