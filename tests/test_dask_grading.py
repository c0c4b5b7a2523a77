"""`course grade --scheduler`: the same per-submission work on a Dask cluster, merged into the
one gradebook by the parent, gives exactly the grades of a local run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from course.grading import runner
from course.grading.authoring import build
from course.grading.execution import grade
from course.grading.proofs.mutation import samples, write_samples
from course.grading.results import model

from . import ROOT

pytestmark = pytest.mark.slow

LAB = "lab01_tool_loop"


def _grades(course: Path) -> dict[tuple[str, str], float | None]:
    return {(r.student, c.grade_id): c.score for r in model.scores(course) for c in r.cells}


def test_cluster_gradebook_equals_a_local_run(tmp_path, graded_class):
    """The class ``conftest.graded_class`` graded on local workers, graded again on a Dask
    cluster: the same gradebook."""
    distributed = pytest.importorskip("distributed")
    local, code, out = graded_class
    assert code == 0, out
    remote = runner.scratch_course(ROOT, [LAB], base=tmp_path)
    build.generate(remote, LAB)
    write_samples(remote, samples(ROOT, LAB, "first"))
    try:
        # A real scheduler on loopback TCP, as `--scheduler tcp://HOST:8786` reaches one.
        with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                      protocol="tcp://", host="127.0.0.1",
                                      dashboard_address=None) as cluster:
            assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
            there = grade.grade_class(remote, [LAB], scheduler=cluster.scheduler_address,
                                      progress=False)
        assert there.ok, [r.error for r in there.runs]
        assert len(there.runs) == 3
        assert _grades(remote) == _grades(local)
        assert _grades(local)  # the comparison is not between two empty gradebooks
    finally:
        shutil.rmtree(remote, ignore_errors=True)
