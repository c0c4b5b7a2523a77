"""Shared test setup: the network guard is on for the whole session, one small class graded
by ``course grade`` serves every test that reads what that command leaves, and when
pytest-xdist spreads the suite over workers (``./dev test`` runs ``-n 2``) the test files
that share an expensive fixture run on one worker, so it is built once."""

from __future__ import annotations

from pathlib import Path

import pytest

from course import netguard
from course.grading import runner
from course.grading.authoring import build
from course.grading.cli import main
from course.grading.proofs import mutation

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



#: Tests whose module- or session-scoped fixture grades a class or a course, by file
#: (``stem``) or by test function (``stem::name``). The tests of one group run on one xdist
#: worker, so the fixture is built once; every other test is scheduled on its own.
XDIST_GROUPS = {
    "test_integrity::test_the_real_grader_scores_as_it_must": "integrity_real",
    "test_integrity::test_release_is_a_fresh_generation": "integrity_real",
    "test_integrity::test_sample_scores_as_it_must": "integrity_quick",
    "test_validate::test_every_notebook_meets_the_validate_catch_rate": "catch_rates",
    "test_validate::test_catch_rate_on_the_release": "catch_rates",
    "test_sandbox_attacks": "attacks",
    "test_hostile": "hostile",
    "test_caps": "caps",
    "test_exchange": "exchange",
    "test_cli": "graded_class",
    "test_html_report": "graded_class",
    "test_browser_feedback": "graded_class",
    "test_dask_grading": "graded_class",
}


def xdist_scope(nodeid: str) -> str:
    """The scope a test is scheduled in: its group, or its own node id."""
    path, _, name = nodeid.partition("::")
    stem = Path(path).stem
    return (XDIST_GROUPS.get(f"{stem}::{name.split('[', 1)[0]}")
            or XDIST_GROUPS.get(stem) or nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """xdist's load-by-scope scheduler, with :func:`xdist_scope` as the scopes. (Its own
    ``--dist loadgroup`` marks have no effect under pytest 9: the node id they rewrite is
    no longer the one reported.)"""
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return ByGroup(config, log)
