"""The worker pool's processes come from one fork server that has imported the grader.

A worker that imported the grader itself would spend about two seconds on it (nbformat's
schema validator alone builds a grammar at import), once per worker and on every core at
once. The fork server imports it once, and every worker forks from it ready to grade.
:func:`warm` starts the server before the command line's own imports, so the two run side
by side; :func:`stop` ends it when the command is done.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from multiprocessing.context import BaseContext

#: What the fork server imports before it forks the first worker: the engine, and the
#: fake API's hub that the engine imports only when it grades (it imports the SDK).
PRELOAD = ["course.grading.execution.engine", "course.grading.execution.fakehub"]


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


def stop() -> None:
    """End the fork server at once, when this process will start no more workers (every
    pool is shut down). Left to exit by itself, it would first tear down what it imported
    (about half a second), holding this command's output streams open all the while, so
    whoever reads them (a pipe, ``subprocess.run``) would wait for it."""
    from multiprocessing import forkserver

    server = forkserver._forkserver  # the module's one server, as ensure_running starts it
    pid = getattr(server, "_forkserver_pid", None)
    if not pid:
        return
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
