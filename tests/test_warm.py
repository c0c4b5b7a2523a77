"""Warm kernels (``course/grading/execution/warm.py``): a kernel forked from a template
leaves nothing for the next one, cannot reach into its template, and a template that is
killed or stopped costs time, never a grade.

Each test grades, in this one thread, an attacker and then a victim through the same
template, as a grading worker grades one student after another; the victim's cells print
what it finds, read back from its executed notebook.
"""

from __future__ import annotations

import json
import signal

import nbformat
import pytest

from course.grading.execution import engine, sandbox, warm

pytestmark = pytest.mark.slow  # mounts tmpfs and starts sandboxed kernels (root)

SLEEPER = "4243.25"  # the argument of the process an attacker leaves behind

LEAVE_BEHIND = f"""
import ctypes, os, subprocess, sys
for path in ("/tmp/left-by-a", os.path.expanduser("~/left-by-a"), "left-by-a",
             "../left-by-a"):
    with open(path, "w") as f:
        f.write("from the previous submission")
libc = ctypes.CDLL(None, use_errno=True)
print("shm", libc.shmget(0x5EED, 4096, 0o1000 | 0o666))  # IPC_CREAT
print("sem", libc.semget(0x5EED, 1, 0o1000 | 0o666))
subprocess.Popen([sys.executable, "-c", "import time; time.sleep({SLEEPER})"],
                 start_new_session=True)
subprocess.Popen(["/bin/sh", "-c", "(sleep {SLEEPER} &) ; exit 0"])
"""

REACH_TEMPLATE = """
import ctypes, os
parent = os.getppid()
seen = {}
for what in ("mem", "environ", "maps", "fd"):
    try:
        if what == "fd":
            os.listdir(f"/proc/{parent}/fd")
        else:
            with open(f"/proc/{parent}/{what}", "rb") as f:
                f.read(1)
        seen[what] = "read"
    except OSError as exc:
        seen[what] = exc.errno
libc = ctypes.CDLL(None, use_errno=True)
seen["ptrace"] = libc.ptrace(16, parent, 0, 0)  # PTRACE_ATTACH
print("REACH", __import__("json").dumps(seen))
"""

LOOK = f"""
import ctypes, json, os
procs = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{{pid}}/cmdline", "rb") as f:
                procs.append(f.read().replace(b"\\0", b" ").decode())
        except OSError:
            pass
libc = ctypes.CDLL(None, use_errno=True)
print("LOOK", json.dumps({{
    "tmp": sorted(os.listdir("/tmp")), "home": sorted(os.listdir(os.path.expanduser("~"))),
    "work": sorted(os.listdir(".")), "shm": libc.shmget(0x5EED, 0, 0o666),
    "sem": libc.semget(0x5EED, 0, 0o666), "procs": procs,
    "sleeper": [p for p in procs if "{SLEEPER}" in p]}}))
"""


def _job(name: str, *codes: str) -> engine.Job:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in codes])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    text = nbformat.writes(nb)
    sb = sandbox.default_sandbox()
    return engine.Job(name, "warm", "warm", {"warm.ipynb": text.encode(),
                                             "data.txt": b"a file of its own"},
                      text, readonly=sb.readonly, trusted=tuple(sandbox.trusted_roots(sb)))


def _printed(out: engine.Outcome, tag: str) -> dict:
    assert out.ok, out.error
    for cell in nbformat.reads(out.executed, 4).cells:
        for o in cell.get("outputs", []):
            for line in "".join(o.get("text", "")).splitlines():
                if line.startswith(tag + " "):
                    return json.loads(line[len(tag) + 1:])
    raise AssertionError(f"no {tag} line in the executed notebook")


@pytest.fixture
def template():
    """A fresh template for this thread, closed afterwards."""
    warm.close_all()
    yield
    warm.close_all()


def _kernels() -> int:
    held = getattr(warm._local, "template", None)
    return held.kernels if held is not None else 0


def test_a_warm_kernel_finds_nothing_the_previous_one_left(template):
    attacker = engine.grade_job(_job("a", LEAVE_BEHIND))
    assert attacker.ok, attacker.error
    shown = "".join(o.get("text", "") for c in nbformat.reads(attacker.executed, 4).cells
                    for o in c.get("outputs", []))
    assert "shm -1" not in shown and "sem -1" not in shown, shown  # they were made
    victim = engine.grade_job(_job("b", LOOK))
    assert _kernels() == 2, "both kernels must come from the same template"
    seen = _printed(victim, "LOOK")
    assert not any("left-by-a" in name for key in ("tmp", "home", "work")
                   for name in seen[key]), seen
    assert "data.txt" in seen["work"] and "warm.ipynb" in seen["work"]
    assert seen["shm"] == -1 and seen["sem"] == -1, seen  # the IPC namespace was emptied
    assert not seen["sleeper"], seen["procs"]


def test_a_warm_kernel_cannot_reach_into_its_template(template):
    seen = _printed(engine.grade_job(_job("a", REACH_TEMPLATE)), "REACH")
    assert seen == {"mem": 13, "environ": 13, "maps": 13, "fd": 13, "ptrace": -1}, seen


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP])
def test_a_kernel_that_kills_or_stops_its_template_costs_only_time(template, sig):
    code = f"import os, signal\nos.kill(os.getppid(), {int(sig)})\nprint('sent')"
    first = engine.grade_job(_job("a", code))
    assert first.ok, first.error
    victim = engine.grade_job(_job("b", LOOK))
    seen = _printed(victim, "LOOK")
    assert not seen["sleeper"] and "data.txt" in seen["work"]
    assert engine.grade_job(_job("c", "x = 1")).ok
    held = warm._local.template
    assert held.alive and held.kernels >= 1, "a new template, after the broken one"


def test_a_cold_kernel_is_used_when_warm_is_off(template):
    job = _job("a", LOOK)
    job.warm = False
    seen = _printed(engine.grade_job(job), "LOOK")
    assert "data.txt" in seen["work"] and _kernels() == 0


def test_the_phases_of_grading_are_timed(template):
    out = engine.grade_job(_job("a", "x = 1"))
    assert out.ok and set(out.phases) <= set(engine.PHASES)
    assert {"parse", "sandbox", "kernel", "cells", "stop", "write"} <= set(out.phases)
    assert all(v >= 0 for v in out.phases.values())


PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.title('drawn')"


@pytest.mark.parametrize("warm_kernel", [True, False])
def test_a_plot_is_shown_as_an_image_warm_or_cold(template, warm_kernel):
    """The template imports the inline backend before any shell exists; a kernel forked from
    it must still send each cell's figures as images, as a kernel started cold does."""
    job = _job("a", PLOT)
    job.warm = warm_kernel
    out = engine.grade_job(job)
    assert out.ok, out.error
    images = [o for c in nbformat.reads(out.executed, 4).cells for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert len(images) == 1, "the figure reaches the executed notebook as one PNG"
    assert _kernels() == (1 if warm_kernel else 0)


PRELOADED = """
import json, sys
print("PRELOADED", json.dumps({name: name in sys.modules
                               for name in ("tabnanny", "warm_planted", "jsonschema")}))
"""


def test_the_template_imports_what_the_notebooks_name_never_a_submissions_file(template):
    """The grader names the modules its notebooks import (``Job.preload``); the template
    imports them when it starts, with its folder still empty, so a submission's file named
    like one of them is never what a later kernel shares."""
    job = _job("a", PRELOADED)
    job.preload = ("tabnanny", "warm_planted")
    job.files = {**job.files, "warm_planted.py": b"print('PLANTED')\nraise SystemExit(3)\n"}
    seen = _printed(engine.grade_job(job), "PRELOADED")
    assert seen == {"tabnanny": True, "warm_planted": False, "jsonschema": True}, seen
    cold = _job("b", PRELOADED)
    cold.warm = False
    assert _printed(engine.grade_job(cold), "PRELOADED") == {
        "tabnanny": False, "warm_planted": False, "jsonschema": False}, (
        "a cold kernel imports none of them: the warm one had them from its template")
    held = warm._local.template
    assert held.preload == ("tabnanny", "warm_planted") and held.kernels == 1
    again = _job("c", PRELOADED)
    again.preload = ("tabnanny", "wave")
    assert _printed(engine.grade_job(again), "PRELOADED")["tabnanny"]
    assert warm._local.template is not held, "a template that lacks a module is replaced"


def test_a_quick_kernels_first_cell_arrives_whole_and_its_clients_skip_the_fixed_waits():
    """``QuickKernelManager`` (the grader's kernels and the student's Validate): its clients
    reconnect every ``RECONNECT_MS`` and are ready without jupyter_client's 0.2 s of IOPub
    silence; nothing the first cells send is lost for it."""
    import zmq
    from nbclient import NotebookClient

    from course import kernelfork

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import sys\nprint('one')\nprint('two')\n"
                                  "_ = sys.stderr.write('three\\n')"),
        nbformat.v4.new_code_cell("40 + 2")])
    km = kernelfork.QuickKernelManager(kernel_name="python3")
    NotebookClient(nb, km=km, kernel_name="python3").execute()
    first = {o.name: o.text for o in nb.cells[0].outputs}
    assert first == {"stdout": "one\ntwo\n", "stderr": "three\n"}, nb.cells[0].outputs
    assert nb.cells[1].outputs[0].data["text/plain"] == "42"
    kc = km.client()
    assert kc.wait_for_ready.__func__ is kernelfork.ready
    assert km.context.getsockopt(zmq.RECONNECT_IVL) == kernelfork.RECONNECT_MS
