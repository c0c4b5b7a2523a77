"""The local worker pool survives a worker process dying: only the submission that kills
its process fails, and the submissions that died with the pool are graded again alone."""

from __future__ import annotations

import pytest

from course.grading.engine import Job
from course.grading.pool import run_local

from .pool_jobs import fake_grade


def _job(student: str, how: bytes, marker: str = "") -> Job:
    return Job(student, "lab", "lab", files={"how": how}, source=marker)


@pytest.mark.slow  # worker processes, one per retried submission
def test_a_dying_worker_costs_only_its_own_submission(tmp_path):
    jobs = [_job("killer", b"die"), _job("bystander", b"slow"),
            _job("flaky", b"die once", str(tmp_path / "flaky")), _job("quick", b"ok")]
    done = []
    outs = run_local(jobs, workers=2, on_done=done.append, fn=fake_grade)
    by = {o.student: o for o in outs}
    assert [o.student for o in outs] == ["killer", "bystander", "flaky", "quick"]
    assert not by["killer"].ok
    assert by["killer"].error == "grader worker crashed (twice while grading it alone)"
    assert by["bystander"].ok and by["flaky"].ok and by["quick"].ok
    assert sorted(o.student for o in done) == sorted(by), "each reported once, when done"
