"""Caps a hostile student meets when they know the grader's source: a private /tmp of
limited size and file count, a working folder with a quota, a process cap and a memory cap
per sandbox (not per uid or per process), a submission folder copied without following a
single link, and an oversized submission refused for the reason it is refused.

Two scratch courses with Lab 1 released, graded through ``grade.autograde`` with two
workers. The first holds attackers that fill /tmp with data and with empty files, fill the
working folder, hold every process slot they can, and take memory in many processes and in
the kernel itself, while a correct classmate is graded beside them; the second holds
submission folders with links to the source notebook, the gradebook and a file only root
may read, a link cycle, a pipe and a device, a notebook that is a link, and a notebook too
large to take. What each attacker measured from inside is printed by its cells and read
back from the autograded notebook.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
from pathlib import Path

import nbformat
import pytest

from course.grading import runner
from course.grading.authoring import build
from course.grading.authoring.integrity import secret_lines
from course.grading.execution import grade, preflight
from course.grading.execution.files import size_text
from course.grading.execution.sandbox import (
    MAX_PROCESSES,
    MEMORY_BYTES,
    MEMORY_TOTAL,
    TMP_BYTES,
    TMP_INODES,
    WORK_BYTES,
)
from course.grading.proofs.mutation import submission
from course.grading.results import model

from . import ROOT

pytestmark = pytest.mark.slow  # starts kernels and nbgrader processes

LAB = "lab01_tool_loop"
NB = f"{LAB}.ipynb"
#: How long the fork bomb keeps every slot it got: past the moment the classmate graded
#: on the other worker (after the pre-flight's solution) starts its kernel, and short
#: enough that the whole bomb fits in the provisional budget a submission handed out
#: before the pre-flight ends gets (``preflight.BUDGET_FLOOR``), so it is not cut off and
#: graded again later, after the classmate is done (its printed times would then be
#: the second run's).
HOLD = 40
SECRET = "ROOT-ONLY-0600-CONTENT-7f3a"

#: Write 32 MiB files into a folder until it refuses or twice the cap is written.
FILL = '''
import os, time
def _fill(folder, most):
    written, err = 0, 0
    chunk = b"\\0" * (1 << 20)
    try:
        i = 0
        while written < most:
            with open(os.path.join(folder, f"fill{{i}}.bin"), "wb") as f:
                for _ in range(32):
                    f.write(chunk)
                    written += len(chunk)
            i += 1
    except OSError as exc:
        err = exc.errno
    return written, err
print("FILLED", *_fill({folder!r}, {most}))
'''
#: Create empty files in /tmp until it refuses one (each costs an inode, not a byte).
TOUCH = '''
import os
n, err = 0, 0
try:
    while n < 10 * 65536 * 4:
        os.close(os.open(f"/tmp/e{n}", os.O_CREAT | os.O_WRONLY, 0o600))
        n += 1
except OSError as exc:
    err = exc.errno
print("TOUCHED", n, err)
'''
#: Start CHILDREN processes, each under the per-process address-space limit, that together
#: ask for twice the sandbox's memory; each offers itself first to the out-of-memory killer,
#: so the kernel that watches them lives. The kernel sums their resident memory as it goes.
CHILDREN = 4
HOG = f'''
import os, subprocess, sys, time
child = """
import sys, time
open("/proc/self/oom_score_adj", "w").write("1000")
held = []
for _ in range({2 * MEMORY_TOTAL // CHILDREN // (64 << 20)}):
    held.append(b"\\1" * (64 << 20))
time.sleep(60)
"""
kids = [subprocess.Popen([sys.executable, "-c", child]) for _ in range({CHILDREN})]
peak, deadline = 0, time.time() + 40
def _rss(pid):
    try:
        return int(open(f"/proc/{{pid}}/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0
while time.time() < deadline and any(k.poll() is None for k in kids):
    peak = max(peak, sum(_rss(k.pid) for k in kids if k.poll() is None))
    if sum(k.poll() is not None for k in kids) >= 2:
        break
    time.sleep(0.02)
ended = [k.poll() for k in kids]  # before the watch kills the rest: None is alive
for k in kids:
    k.kill()
    k.wait()
print("HOGGED", peak, *[c for c in ended if c is not None])
'''
#: The kernel itself asks for a quarter more than the sandbox's cap, well under its own
#: address-space limit (so the cap, not a MemoryError, is what stops it).
GREEDY = f"held = [b'\\1' * (64 << 20) for _ in range({(MEMORY_TOTAL * 5 // 4) // (64 << 20)})]"

#: Start processes (each `sleep`) until the system refuses one; then, for HOLD seconds,
#: take again every slot that frees up (a kernel that ends gives its slots back).
BOMB = f'''
import os, time
print("BEGIN", time.time())
started, refused = [], 0
def _fork():
    # posix_spawn (vfork and exec) costs the same for a large kernel as for a small one,
    # where 500 os.fork() calls of the kernel take seconds on a busy machine.
    started.append(os.posix_spawn("/bin/sleep", ["sleep", "{HOLD + 30}"], {{}}))
try:
    while len(started) < 100000:
        _fork()
except OSError as exc:
    refused = exc.errno
print("FORKS", len(started), refused, "ARMED", time.time())
until = time.time() + {HOLD}
while time.time() < until:
    try:
        _fork()
    except OSError:
        time.sleep(0.01)
print("RELEASED", time.time(), "HELD", len(started))
'''


def _answer(nb):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "agent")


def _printed(course: Path, student: str) -> str:
    nb = runner.read_notebook(course / "autograded" / student / LAB / NB)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                   for o in c.outputs if o.get("output_type") == "stream")


def _course(tmp_path_factory, name: str, timeout: int):
    course = runner.scratch_course(ROOT, [LAB], base=tmp_path_factory.mktemp(name))
    with open(course / runner.CONFIG_FILE, "a") as f:
        f.write(f"\nc.Execute.timeout = {timeout}\n")
    build.generate(course, LAB)
    release = runner.read_notebook(course / "release" / LAB / NB)
    source = runner.read_notebook(course / "source" / LAB / NB)
    return course, release, source, submission(release, source)


def _put(course: Path, student: str, nb) -> Path:
    target = course / "submitted" / student / LAB / NB
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    return target.parent


def _with(good, code: str, first: bool = False):
    """The correct submission with ``code`` run after its answer (or in a first cell)."""
    nb = nbformat.from_dict(good)
    if first:
        nb.cells.insert(0, nbformat.v4.new_code_cell(code))
    else:
        _answer(nb).source += "\n" + code
    return nb


@pytest.fixture(scope="module")
def resources(tmp_path_factory):
    assert HOLD + 15 < preflight.BUDGET_FLOOR, "the bomb must fit in the provisional budget"
    course, _, _, good = _course(tmp_path_factory, "caps_resources", HOLD + 60)
    # The bomb arms in its first cell, seconds after its kernel is up: long before the
    # pre-flight's whole solution run on the other worker ends and the classmate starts.
    _put(course, "fork_bomb", _with(good, BOMB, first=True))
    _put(course, "fill_tmp", _with(good, FILL.format(folder="/tmp", most=2 * TMP_BYTES)))
    _put(course, "fill_work", _with(good, FILL.format(folder=".", most=2 * WORK_BYTES)))
    # Not an attack: a correct classmate, whose first cell says when its kernel was up.
    _put(course, "good_parallel", _with(good, "import time\nprint('STARTED', time.time())",
                                        first=True))
    _put(course, "touch_tmp", _with(good, TOUCH))
    _put(course, "hog_children", _with(good, HOG))
    _put(course, "greedy_kernel", _with(good, GREEDY, first=True))
    # Two workers: the bomb holds one; the other grades the pre-flight's solution, then the
    # classmate, while the bomb holds its slots, then the fillers.
    order = ["fork_bomb", "fill_tmp", "fill_work", "good_parallel", "touch_tmp",
             "hog_children", "greedy_kernel"]
    runs = {r.student: r for r in grade.autograde(course, [(s, LAB) for s in order], jobs=2,
                                                  progress=False)}
    rows = {r.student: r for r in model.scores(course)}
    yield course, runs, rows
    shutil.rmtree(course, ignore_errors=True)


def _filled(course: Path, student: str) -> tuple[int, int]:
    m = re.search(r"FILLED (\d+) (\d+)", _printed(course, student))
    assert m, _printed(course, student)
    return int(m[1]), int(m[2])


def test_tmp_is_capped_at_its_size(resources):
    course, runs, _ = resources
    assert runs["fill_tmp"].ok, runs["fill_tmp"].error
    written, err = _filled(course, "fill_tmp")
    # Host memory the private /tmp took: at most its size, then "no space left".
    assert written <= TMP_BYTES, f"/tmp took {size_text(written)}, cap {size_text(TMP_BYTES)}"
    assert err == errno.ENOSPC


def test_working_folder_is_capped_at_its_quota(resources):
    course, runs, _ = resources
    assert runs["fill_work"].ok, runs["fill_work"].error
    written, err = _filled(course, "fill_work")
    assert written <= WORK_BYTES, f"work/ took {size_text(written)}, quota {size_text(WORK_BYTES)}"
    assert err == errno.ENOSPC


def test_the_greedy_kernel_stays_under_its_own_address_space_limit():
    assert MEMORY_TOTAL * 5 // 4 + 512 * 1024**2 < MEMORY_BYTES  # a kernel's own footprint


def test_tmp_is_capped_at_its_file_count(resources):
    course, runs, rows = resources
    assert runs["touch_tmp"].ok, runs["touch_tmp"].error
    m = re.search(r"TOUCHED (\d+) (\d+)", _printed(course, "touch_tmp"))
    assert m, _printed(course, "touch_tmp")
    assert int(m[1]) <= TMP_INODES and int(m[2]) == errno.ENOSPC, m[0]
    assert rows["touch_tmp"].auto_score == 14  # its own answer still counts


def test_memory_is_capped_for_the_whole_sandbox(resources):
    """Four processes, each under the per-process limit, ask for twice the sandbox's cap:
    together they never hold more than the cap, the kernel kills some of them, and the
    submission's own answer is graded as usual."""
    course, runs, rows = resources
    assert runs["hog_children"].ok, runs["hog_children"].error
    m = re.search(r"HOGGED (\d+) (.*)", _printed(course, "hog_children"))
    assert m, _printed(course, "hog_children")
    peak, codes = int(m[1]), [int(c) for c in m[2].split()]
    assert peak <= MEMORY_TOTAL, f"held {size_text(peak)}, cap {size_text(MEMORY_TOTAL)}"
    assert peak > MEMORY_TOTAL // 4, f"the attack never took memory ({size_text(peak)})"
    # killed at the cap: the watch stops once two are gone (a third may go in that instant)
    assert len(codes) >= 2 and set(codes) == {-9}, codes
    assert rows["hog_children"].auto_score == 14


def test_a_kernel_past_the_memory_cap_fails_with_that_reason(resources):
    _, runs, rows = resources
    run = runs["greedy_kernel"]
    assert not run.ok
    assert run.error.startswith("kernel died in cell 1") and (
        f"out of memory, the sandbox's cap of {MEMORY_TOTAL // 1024**2:,} MiB" in run.error
    ), run.error
    assert "greedy_kernel" not in rows or rows["greedy_kernel"].auto_score == 0
    assert rows["good_parallel"].auto_score == 14


def test_holding_every_process_slot_stops_no_other_kernel(resources):
    course, runs, rows = resources
    bomb = _printed(course, "fork_bomb")
    m = re.search(r"FORKS (\d+) (\d+) ARMED ([\d.]+)", bomb)
    released = re.search(r"RELEASED ([\d.]+)", bomb)
    assert m and released, bomb
    assert int(m[1]) < MAX_PROCESSES and int(m[2]) == errno.EAGAIN, bomb
    assert runs["good_parallel"].ok, runs["good_parallel"].error
    assert rows["good_parallel"].auto_score == rows["good_parallel"].auto_max == 14
    started = re.search(r"STARTED ([\d.]+)", _printed(course, "good_parallel"))
    assert started
    # The classmate's kernel came up while every slot the bomb could take was held.
    assert float(m[3]) < float(started[1]) < float(released[1]), (bomb, started[0])


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    course, _, source, good = _course(tmp_path_factory, "caps_links", 30)
    root_only = tmp_path_factory.mktemp("root_only") / "secret.txt"
    root_only.write_text(SECRET)
    root_only.chmod(0o600)
    links = {"hidden.txt": course / "source" / LAB / NB,
             "gradebook.db": course / "gradebook.db",
             "secret.txt": root_only,
             "source_dir": course / "source" / LAB}
    folder = _put(course, "linker", good)
    (folder / "notes.txt").write_text("my own notes\n")
    for name, target in links.items():
        (folder / name).symlink_to(target)
    # The notebook itself a link to the source notebook: the grader must say so.
    notebook_link = course / "submitted" / "link_notebook" / LAB / NB
    notebook_link.parent.mkdir(parents=True)
    notebook_link.symlink_to(course / "source" / LAB / NB)
    # Too large: a correct notebook padded past the submission limit.
    big = nbformat.from_dict(good)
    big.metadata["padding"] = "x" * (grade.MAX_SUBMISSION_BYTES + 10 * 1024**2)
    big_path = _put(course, "oversized", big) / NB
    _put(course, "good_first", good)
    first = ["linker", "link_notebook", "oversized", "good_first"]
    crash = [None, None]
    runs = {}
    try:
        runs.update({r.student: r for r in grade.autograde(
            course, [(s, LAB) for s in first], jobs=2, progress=False)})
    except Exception as exc:  # noqa: BLE001 - the test reports it
        crash[0] = exc
    # A cycle, a pipe and a device node, graded with a classmate in a second command.
    folder = _put(course, "looper", good)
    (folder / "loop").symlink_to(".")
    os.mkfifo(folder / "pipe")
    try:
        os.mknod(folder / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        device = True
    except OSError:
        device = False  # no CAP_MKNOD or a nodev file system: the rest still applies
    _put(course, "good_second", good)
    try:
        runs.update({r.student: r for r in grade.autograde(
            course, [("looper", LAB), ("good_second", LAB)], jobs=2, progress=False)})
    except Exception as exc:  # noqa: BLE001 - the test reports it
        crash[1] = exc
    feedback_errors = grade.write_feedback(course, [LAB]) if not any(crash) else []
    rows = {r.student: r for r in model.scores(course)}
    yield {"course": course, "runs": runs, "rows": rows, "crash": crash, "source": source,
           "links": links, "device": device, "big": big_path.stat().st_size,
           "feedback_errors": feedback_errors}
    shutil.rmtree(course, ignore_errors=True)


def _everything_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*")] if folder.exists() else []


def test_no_link_in_a_submission_is_followed(linked):
    course = linked["course"]
    assert linked["crash"][0] is None, f"course grade died: {linked['crash'][0]!r}"
    run = linked["runs"]["linker"]
    assert run.ok, run.error
    assert linked["rows"]["linker"].auto_score == 14  # its own work still counts
    hidden = secret_lines(linked["source"], solutions=False)
    for top in ("autograded", "feedback"):
        got = {str(p.relative_to(course / top / "linker" / LAB))
               for p in _everything_under(course / top / "linker" / LAB)}
        assert not got & set(linked["links"]), (top, got)
        for p in _everything_under(course / top):
            assert not p.is_symlink(), p
            if p.is_file():
                data = p.read_bytes()
                assert SECRET.encode() not in data, p
                assert not data.startswith(b"SQLite format 3"), p  # a gradebook copy
                if p.suffix != ".html" and p.name != NB:
                    text = data.decode("utf-8", "replace")
                    assert not [ln for ln in hidden if ln in text], p
    assert (course / "autograded" / "linker" / LAB / "notes.txt").read_text() == "my own notes\n"
    # Nothing refused silently: the run names every link it did not take.
    for name in linked["links"]:
        assert f"{name} (a symbolic link)" in run.error, run.error


def test_a_notebook_that_is_a_link_is_refused_for_that_reason(linked):
    run = linked["runs"]["link_notebook"]
    assert not run.ok
    assert run.error == (f"{NB} in the submission is a symbolic link; the grader reads "
                         "regular files only")


def test_a_link_cycle_pipe_or_device_costs_the_command_nothing(linked):
    assert linked["crash"][1] is None, f"course grade died: {linked['crash'][1]!r}"
    runs, rows = linked["runs"], linked["rows"]
    assert runs["good_second"].ok and rows["good_second"].auto_score == 14
    looper = runs["looper"]
    assert looper.ok, looper.error
    assert "loop (a symbolic link)" in looper.error and "pipe (a named pipe)" in looper.error
    if linked["device"]:
        assert "null (a device file)" in looper.error
    got = {p.name for p in _everything_under(linked["course"] / "autograded" / "looper" / LAB)}
    assert got == {NB}, got


def test_an_oversized_notebook_is_refused_with_its_size(linked):
    run = linked["runs"]["oversized"]
    assert not run.ok
    size, limit = size_text(linked["big"]), size_text(grade.MAX_SUBMISSION_BYTES)
    assert run.error == (f"the submission is {size} ({NB} is {size}); the grader takes at "
                         f"most {limit}"), run.error
    assert linked["runs"]["good_first"].ok
    assert linked["rows"]["good_first"].auto_score == 14
