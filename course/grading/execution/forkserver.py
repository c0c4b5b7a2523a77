"""The worker pool's processes come from one fork server that has imported the grader.

A worker that imported the grader itself would spend about two seconds on it (nbformat's
schema validator alone builds a grammar at import), once per worker and on every core at
once. The fork server imports it once, and every worker forks from it ready to grade.
:func:`warm` starts the server before the command line's own imports, so the two run side
by side.
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

#: What the fork server imports before it forks the first worker.
PRELOAD = ["course.grading.execution.engine"]


def context() -> BaseContext:
    """The ``forkserver`` start method, with the grader preloaded."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def warm() -> None:
    """Start the fork server now (it imports :data:`PRELOAD` in the background)."""
    from multiprocessing import forkserver

    context()
    forkserver.ensure_running()
