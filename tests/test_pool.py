"""The local worker pool survives a worker process dying: only the submission that kills
its process fails, and the submissions that died with the pool are graded again alone. A
pool started ahead of its jobs (:func:`pool.start`) has each worker's warm template
running before the first job, and a template that cannot start does not break it; the
command line's own process ends its fork server when it is done."""

from __future__ import annotations

import subprocess
import sys

import pytest

from course.grading.execution import pool, sandbox
from course.grading.execution.engine import Job
from course.grading.execution.pool import run_local

from . import ROOT
from .pool_jobs import fake_grade, held_template


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


@pytest.mark.slow  # worker processes
def test_a_job_is_prepared_only_when_a_worker_takes_it():
    """The pre-flight sets a submission's budget from the solution's time: a job must be
    handed over only when a worker is free, so what finished before can still change it."""
    jobs = [_job("first", b"slow"), _job("second", b"slow"), _job("third", b"ok"),
            _job("refused", b"ok"), _job("fourth", b"ok")]
    done: list[str] = []
    seen: dict[str, int] = {}

    def prepare(job: Job) -> str:
        seen[job.student] = len(done)
        if job.student == "refused":
            return "not graded: a reason"
        job.total_timeout = 100 + len(done)
        return ""

    outs = run_local(jobs, workers=2, on_done=lambda o: done.append(o.student),
                     fn=fake_grade, prepare=prepare)
    by = {o.student: o for o in outs}
    assert seen["first"] == seen["second"] == 0
    assert seen["third"] >= 1, "the third job was handed over before a worker was free"
    assert by["third"].seconds == 100 + seen["third"], "prepare's change did not reach it"
    assert not by["refused"].ok and by["refused"].error == "not graded: a reason"
    assert by["refused"].attempts == 1 and by["fourth"].ok
    assert sorted(done) == sorted(by)


def test_the_command_line_starts_the_pools_fork_server_before_its_own_imports():
    """``python -m course grade`` starts the fork server (which imports the grader for every
    worker) first, so it imports while the command does; a wrong module path in
    ``course/__main__.py`` is swallowed as a student copy's ImportError and the first
    worker waits about 1.5 s longer."""
    probe = ("import runpy, sys\n"
             "sys.argv = ['course', 'grade', '--help']\n"
             "try:\n"
             "    runpy.run_module('course', run_name='__main__')\n"
             "except SystemExit:\n"
             "    pass\n"
             "from multiprocessing import forkserver\n"
             "print('FORKSERVER', forkserver._forkserver._forkserver_pid is not None)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert "FORKSERVER True" in done.stdout, done.stdout[-500:] + done.stderr[-2000:]


@pytest.mark.slow  # worker processes, each with a sandboxed template
@pytest.mark.parametrize("warm", [True, False])
def test_a_started_pools_workers_hold_their_templates_before_their_first_job(warm):
    sb = sandbox.default_sandbox()
    started = pool.start(2, (sb.readonly, ()) if warm else None)
    outs = run_local([_job("a", b""), _job("b", b""), _job("c", b"")], workers=2,
                     fn=held_template, started=started)
    if warm:
        assert all(o.ok for o in outs), [o.error for o in outs]
    else:  # the check can fail: without a template to start, no worker holds one
        assert not any(o.ok for o in outs) and outs[0].error == "no template"


@pytest.mark.slow  # a worker process
def test_a_template_that_cannot_start_leaves_the_pool_working():
    started = pool.start(1, (("/no/such/readonly/root",), ()))
    with started:
        # an initializer that raised would have broken the pool: this would raise too
        assert started.submit(sum, [1, 2]).result(timeout=120) == 3


SERVER = """
import os
from multiprocessing import forkserver as server
from course.grading.execution import forkserver, pool
forkserver.warm()
with pool.start(1) as started:
    started.submit(os.getpid).result()
pid = server._forkserver._forkserver_pid
{stop}
try:
    os.kill(pid, 0)
    print("alive")
except ProcessLookupError:
    print("gone")
"""


@pytest.mark.slow  # a fork server
@pytest.mark.parametrize("stop", [True, False])
def test_the_fork_server_is_ended_when_the_command_is_done(stop):
    code = SERVER.format(stop="forkserver.stop()" if stop else "")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == ("gone" if stop else "alive")


EXIT = """
import atexit, sys, threading, time
from course.grading.cli import exit_now
atexit.register(print, "atexit ran")
if sys.argv[1] == "thread":
    threading.Thread(target=lambda: (time.sleep(0.5), print("thread done"))).start()
sys.stdout.write("no newline yet")
exit_now(3)
"""


@pytest.mark.parametrize("thread", [False, True])
def test_exit_now_keeps_the_code_the_output_and_atexit_and_waits_for_a_thread(thread):
    done = subprocess.run([sys.executable, "-c", EXIT, "thread" if thread else "none"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 3, done.stderr[-2000:]
    # every write reached the pipe, in order: a running thread was waited for first
    assert done.stdout == ("no newline yetthread done\natexit ran\n" if thread else
                           "no newline yetatexit ran\n")
