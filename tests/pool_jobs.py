"""Stand-ins for ``engine.grade_job`` that the pool tests run in worker processes (they must
be importable by name there). A job's ``files`` say how to behave: ``b"ok"`` grades
at once; ``b"slow"`` grades after a short while; ``b"die"`` kills its worker process every
time; ``b"die once"`` kills it only the first time (a marker file remembers);
``b"die mounted"`` dies holding a sandboxed scratch folder's mounts."""

from __future__ import annotations

import os
import time
from pathlib import Path

from course.grading.execution.engine import Job, Outcome


def fake_grade(job: Job) -> Outcome:
    how = job.files["how"]
    if how == b"die mounted":  # killed mid-grade, holding its scratch tmpfs mounts
        from course.grading.execution.sandbox import new_scratch

        new_scratch({}, sandboxed=True)
        os._exit(9)
    if how == b"die" or (how == b"die once" and _first_time(Path(job.source))):
        os._exit(9)
    if how == b"slow":
        time.sleep(1.5)  # still running when another worker dies
    return Outcome(job.student, job.assignment, job.notebook, ok=True, attempts=os.getpid(),
                   seconds=job.total_timeout)  # the budget it was handed, for the tests


def _first_time(marker: Path) -> bool:
    if marker.exists():
        return False
    marker.write_text("died once")
    return True


def held_template(job: Job) -> Outcome:
    """Whether this worker holds a live warm template that has forked no kernel yet: one
    its pool started for it (:func:`course.grading.execution.pool.start`), not a job."""
    from course.grading.execution import warm

    held = getattr(warm._local, "template", None)
    state = ("no template" if held is None else
             f"template alive={held.alive}, kernels forked={held.kernels}")
    ok = held is not None and held.alive and held.kernels == 0
    return Outcome(job.student, job.assignment, job.notebook, ok=ok, error=state,
                   attempts=os.getpid())
