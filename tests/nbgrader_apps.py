"""Run nbgrader's own apps inside the test process, as one user in one folder would.

nbgrader's tests run its apps this way: the same code as the command line, without an
interpreter start (seconds each) per command.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from pathlib import Path

from course.grading.authoring.export import LAB_CONFIG_DIR
from course.grading.runner import nbgrader_env


@contextlib.contextmanager
def acting_as(cwd: Path, env: dict[str, str]):
    """Run as a process started in ``cwd`` with environment ``env`` would (then restore)."""
    saved_env, saved_cwd, saved_path = dict(os.environ), os.getcwd(), list(sys.path)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(saved_cwd)
        sys.path[:] = saved_path


def run_nbgrader(cwd: Path, env: dict[str, str], *args: str) -> str:
    """``nbgrader ARGS`` run in this process (the nbgrader apps themselves, as nbgrader's own
    tests run them: an interpreter start per command would cost seconds); returns its log."""
    from jupyter_core.application import NoStart
    from nbgrader.apps import NbGraderApp

    log = io.StringIO()
    with acting_as(cwd, env):
        app = NbGraderApp.instance()
        try:
            app.initialize(list(args))
            app.init_logging(logging.StreamHandler, [log], color=False, subapps=True)
            app.start()
            code = 0
        except NoStart:  # a subcommand app ran and finished
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
        finally:
            app.reset()
    out = log.getvalue()
    assert code == 0 and "| ERROR]" not in out and "| CRITICAL]" not in out, (
        f"nbgrader {' '.join(args)} failed in {cwd} (exit {code}):\n{out[-3000:]}")
    return out


def student_env(home: Path, copy: Path) -> dict[str, str]:
    """A student's server on a hub: its own HOME, the copy's settings on JUPYTER_CONFIG_PATH."""
    env = nbgrader_env()
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR",
                 "JUPYTERHUB_USER", "JUPYTER_PATH"):
        env.pop(name, None)
    env["HOME"] = str(home)
    env["JUPYTER_CONFIG_PATH"] = str(copy / LAB_CONFIG_DIR)
    return env
