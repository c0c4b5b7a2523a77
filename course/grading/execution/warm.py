"""Warm grading kernels: a sandbox whose template (:mod:`course.kernelfork`) has imported
the kernel and the heavy libraries once, and forks a fresh kernel from that state for each
submission, used once and thrown away.

A cold kernel pays a Python start, ``ipykernel``'s import and ``import anthropic`` (about
0.8 s of CPU alone) before the first cell of every submission. Here each grading thread
keeps one **template**: a process in a sandbox of its own (:class:`.sandbox.Sandbox`, the
same namespaces, user, limits and mounts as a cold kernel's) that imports
:data:`course.kernelfork.PRELOAD` and then waits. For each submission:

1. the grader empties the sandbox's scratch folder and ``/tmp`` (both tmpfs mounts it
   made) and writes that submission's files into it (:meth:`Template.prepare`);
2. the template forks; the child waits until the grader has moved it into a cgroup of
   its own (the per-sandbox caps on processes and memory), then starts the kernel on the
   connection file the grader wrote (:meth:`Template.fork`);
3. after the last cell every process of that cgroup is killed, the cgroup removed, and the
   System V IPC objects of the sandbox's IPC namespace deleted (:meth:`Template.reset`).

So no process, file or IPC object of one submission is left for the next; what the next
child shares with the template is the template's memory as it was before any submission
ran, copy-on-write. The template is not dumpable (``PR_SET_DUMPABLE`` 0): a child running
as the same user cannot ptrace it or read its memory or file descriptors through
``/proc``. A child that kills or stops the template costs time only: a template that has
ended, is stopped, or does not answer within ``kernelfork.ANSWER_TIMEOUT`` is killed with
its sandbox, and the next submission gets a new one. Any failure here falls back to a cold
kernel: the engine makes a failure to start a :class:`.engine.KernelStartFailure`, which it
retries cold.
"""

from __future__ import annotations

import atexit
import functools
import multiprocessing.util
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import nbformat

from course.kernelfork import PRELOAD, ForkedProcess, TemplateError, TemplateProcess

from .sandbox import (
    NOBODY,
    Cgroup,
    Sandbox,
    SandboxKernelManager,
    new_cgroup,
    new_scratch,
    release_scratch,
    tmp_of,
)

#: How long killing a kernel's processes may take before the whole template goes with it.
KILL_TIMEOUT = 3.0


def _host_pid(group: Cgroup, ns_pid: int) -> int | None:
    """The pid, as this process sees it, of the task of ``group`` whose pid inside its pid
    namespace is ``ns_pid``."""
    for procs in group.procs()[:1]:
        for pid in Path(procs).read_text().split():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("NSpid:") and line.split()[-1] == str(ns_pid):
                    return int(pid)
    return None


def kill_group(group: Cgroup, timeout: float = KILL_TIMEOUT) -> bool:
    """SIGKILL every task of ``group`` until none is left; False if some outlived
    ``timeout`` (a process forking as fast as it is killed)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pids = [int(p) for f in group.procs() for p in Path(f).read_text().split()]
        except OSError:
            return True  # the group is gone
        if not pids:
            return True
        if time.monotonic() > deadline:
            return False
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.005)


def _stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped (or gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] in "tTZX"


def _empty(folder: Path, keep: set[Path]) -> None:
    """Remove everything in ``folder`` (links unfollowed) except the paths in ``keep``
    (relative to it) and the folders that lead to them, which are emptied of the rest."""
    for entry in list(folder.iterdir()):
        rel = Path(entry.name)
        inner = {k.relative_to(rel) for k in keep if k != rel and k.is_relative_to(rel)}
        if rel in keep:
            continue
        if inner and entry.is_dir() and not entry.is_symlink():
            _empty(entry, inner)
        elif entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


class Template:
    """One warm sandbox: its scratch folder and ``/tmp``, its cgroup, its template process.

    Start it with :meth:`start`; then, for each submission, :meth:`prepare`, a kernel
    manager from :meth:`kernel_manager`, and :meth:`reset` when that kernel is gone."""

    def __init__(self, sandbox: Sandbox, preload: tuple[str, ...] = ()) -> None:
        self.sandbox = sandbox
        self.preload = preload  # what it imports beyond kernelfork.PRELOAD
        self.scratch: Path | None = None
        self.group: Cgroup | None = None
        self.proc: TemplateProcess | None = None
        self.pid = 0  # the template's pid as the grader sees it
        self.kernels = 0

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.alive

    def start(self) -> None:
        self.scratch = new_scratch({}, sandboxed=True)
        _all.add(self)
        self.group = new_cgroup(self.scratch.name, self.sandbox.processes,
                                self.sandbox.memory_total)
        # The scratch folder is empty while the template imports: no submission's file
        # can stand in for a module it imports.
        cmd = self.sandbox.command(self.scratch, [sys.executable, "-m", "course.kernelfork",
                                                  *self.preload], self.group)
        self.proc = TemplateProcess(cmd, cwd=str(self.scratch / "work"))
        pid = (_host_pid(self.group, self.proc.own_pid)
               if isinstance(self.proc.own_pid, int) else None)
        if pid is None:
            raise TemplateError("the template's process is not in its cgroup")
        self.pid = pid

    def prepare(self, files: dict[str, bytes]) -> Path:
        """The scratch folder, holding only ``files`` in ``work/`` (as :func:`new_scratch`
        writes them), for the next kernel."""
        assert self.scratch is not None
        work = self.scratch / "work"
        for rel, data in files.items():
            target = (work / rel).resolve()
            if work.resolve() not in target.parents:
                continue  # a path that climbs out of the folder is not part of it
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        for p in (self.scratch, *self.scratch.rglob("*")):
            os.chown(p, NOBODY, NOBODY, follow_symlinks=False)
        return self.scratch

    def fork(self, argv: list[str]) -> tuple[ForkedProcess, Cgroup]:
        """A new kernel on ``argv`` (ipykernel's arguments), and the cgroup of its own it
        was moved into before it ran."""
        assert self.group is not None and self.scratch is not None
        if self.proc is None:
            raise TemplateError("the template has ended")
        ns_pid = self.proc.ask(op="fork", argv=argv, cwd=str(self.scratch / "work")
                               ).get("pid")
        if not isinstance(ns_pid, int):
            raise TemplateError("the template did not fork")
        pid = _host_pid(self.group, ns_pid)
        self.kernels += 1
        group = new_cgroup(f"{self.scratch.name}-k{self.kernels}", self.sandbox.processes,
                           self.sandbox.memory_total)
        try:
            if pid is None:
                raise TemplateError("the forked kernel is not in the template's cgroup")
            for procs in group.procs():
                Path(procs).write_text(str(pid))
            kernel = ForkedProcess(self.proc, pid, ns_pid, lambda: self._kill(group))
            self.proc.ask(op="go", pid=ns_pid)
        except (OSError, TemplateError):
            kill_group(group)
            group.remove()
            raise
        return kernel, group

    def _kill(self, group: Cgroup) -> None:
        """Every process of a kernel's cgroup; if some outlive :data:`KILL_TIMEOUT`, the
        template with its whole sandbox (its pid namespace takes them all)."""
        if not kill_group(group):
            self.close()

    def kernel_manager(self, kernel_name: str) -> WarmKernelManager:
        from .sandbox import make_kernel_manager

        assert self.scratch is not None
        km = make_kernel_manager(self.scratch, self.sandbox, kernel_name,
                                 manager=WarmKernelManager)
        km.template = self
        return km

    def reset(self) -> None:
        """Empty the scratch folder and ``/tmp`` and the IPC namespace for the next kernel.
        A template that has ended or been stopped (a kernel runs as the same user, and may
        signal it), or a sandbox that cannot be emptied, is closed instead: the next
        submission gets a new one."""
        if self.scratch is None:
            return
        if not self.alive or _stopped(self.pid):
            self.close()
            return
        try:
            _empty(self.scratch / "work", set())
            _empty(self.scratch, {Path("work")})
            # Inside the sandbox, the mount points of the scratch folder and of any
            # read-only root under /tmp are folders of its /tmp: they stay.
            tmp = Path("/tmp")
            keep = {Path(t).relative_to(tmp) for t in (*self.sandbox.readonly,
                                                       str(self.scratch))
                    if Path(t).is_relative_to(tmp)}
            _empty(tmp_of(self.scratch), keep)
            # System V shared memory, semaphores and message queues outlive the processes
            # that made them; they live in the sandbox's IPC namespace, shared by its kernels.
            done = subprocess.run(["nsenter", f"--target={self.pid}", "--ipc", "--",
                                   "ipcrm", "--all"], capture_output=True, timeout=10)
            if done.returncode != 0:
                raise TemplateError("could not empty the sandbox's IPC namespace")
        except (OSError, subprocess.SubprocessError, TemplateError):
            self.close()

    def close(self) -> None:
        """Kill the template with its sandbox and give back its mounts and cgroup."""
        if self.proc is not None:
            self.proc.kill()
            self.proc = None
        if self.group is not None:
            kill_group(self.group)
            self.group.remove()
            self.group = None
        if self.scratch is not None:
            release_scratch(self.scratch)
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
        _all.discard(self)


class WarmKernelManager(SandboxKernelManager):
    """A kernel manager whose kernel is forked by a :class:`Template` instead of started."""

    template: Template

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        if "ipykernel_launcher" not in kernel_cmd:
            raise TemplateError("the kernel is not ipykernel; it is started cold")
        for f in Path(self.connection_file).parent.glob("kernel*.json"):
            os.chown(f, NOBODY, NOBODY)
        argv = kernel_cmd[kernel_cmd.index("ipykernel_launcher") + 1:]
        try:
            kernel, self.group = self.template.fork(argv)
        except (OSError, TemplateError) as exc:
            raise TemplateError(str(exc)) from None
        prov = self.provisioner
        assert prov is not None
        prov.process, prov.pid, prov.pgid = kernel, kernel.pid, None  # type: ignore[attr-defined]
        self._reconcile_connection_info(prov.connection_info)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """After the kernel is shut down: every process of its cgroup, then the cgroup,
        goes; the sandbox stays, for :meth:`Template.reset`."""
        await super(SandboxKernelManager, self)._async_cleanup_resources(restart)
        if not restart and self.group is not None:
            self.template._kill(self.group)
            self.group.remove()
            self.group = None

    cleanup_resources = _async_cleanup_resources  # type: ignore[assignment]


_local = threading.local()
_all: set[Template] = set()


@atexit.register
def _close_every_template() -> None:
    for template in list(_all):
        template.close()


def imports_of(sources: Iterable[str]) -> tuple[str, ...]:
    """The modules the code cells of ``sources`` (notebook JSON texts: the course's own
    source notebooks, never a submission) import, sorted and less :data:`PRELOAD`, for a
    template to import before its first fork (:func:`.quickrun.imported_modules`)."""
    names: set[str] = set()
    for text in sources:
        names |= _imports_of_notebook(text)
    return tuple(sorted(names - set(PRELOAD)))


@functools.lru_cache(maxsize=64)
def _imports_of_notebook(text: str) -> frozenset[str]:
    """One notebook's imports, read once per call: the class's jobs and the pre-flight's
    name the same source notebooks (about 0.34 s for all 14 when read twice)."""
    from .quickrun import imported_modules

    nb = nbformat.reads(text, as_version=4)
    return frozenset(imported_modules(c.source for c in nb.cells if c.cell_type == "code"))


def template_for(readonly: tuple[str, ...], preload: tuple[str, ...] = ()) -> Template:
    """This thread's template for a sandbox with ``readonly`` roots that has imported
    ``preload`` (:func:`imports_of`), started on first use (and again after one has ended, or
    for a preload the one held did not import)."""
    held: Template | None = getattr(_local, "template", None)
    if held is not None and (not held.alive or held.sandbox.readonly != readonly
                             or not set(preload) <= set(held.preload)):
        held.close()
        held = None
    if held is None:
        held = Template(Sandbox(readonly), preload)
        try:
            held.start()
        except Exception:
            held.close()
            raise
        _local.template = held
        # A pool worker ends through multiprocessing, which runs its finalizers but not
        # atexit: the template's mounts and cgroups are given back either way.
        multiprocessing.util.Finalize(held, held.close, exitpriority=10)
    return held


def close_all() -> None:
    """Close this thread's template (the worker is done)."""
    held: Template | None = getattr(_local, "template", None)
    if held is not None:
        held.close()
        _local.template = None
