"""Warm kernels: a sandbox that has imported the kernel and the heavy libraries once, and
forks a fresh kernel from that state for each submission, used once and thrown away.

A cold kernel pays a Python start, ``ipykernel``'s import and ``import anthropic`` (about
0.8 s of CPU alone) before the first cell of every submission. Here each grading thread
keeps one **template**: a process in a sandbox of its own (:class:`.sandbox.Sandbox`, the
same namespaces, user, limits and mounts as a cold kernel's) that imports
:data:`PRELOAD` and then waits. For each submission:

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
``/proc``. A child that kills or stops the template costs time only: a template that does
not answer within :data:`ANSWER_TIMEOUT` is killed with its sandbox, and the next
submission gets a new one. Any failure here falls back to a cold kernel
(:class:`.engine.KernelStartFailure` is retried cold).
"""

from __future__ import annotations

import atexit
import ctypes
import importlib
import json
import multiprocessing.util
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

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

#: What the template imports before its first fork: the kernel itself and the libraries
#: every notebook's first cell imports. The course's own modules are not among them: each
#: kernel imports them fresh, as a student's kernel does.
PRELOAD = ("ipykernel.kernelapp", "anthropic", "numpy", "matplotlib", "matplotlib.pyplot",
           "matplotlib_inline.backend_inline")
#: How long the grader waits for the template to start, and for any one answer from it.
START_TIMEOUT = 60.0
ANSWER_TIMEOUT = 10.0
#: How long killing a kernel's processes may take before the whole template goes with it.
KILL_TIMEOUT = 3.0
_PR_SET_DUMPABLE = 4


class TemplateError(Exception):
    """The template did not do what was asked; the message says what."""


# -- inside the sandbox ----------------------------------------------------------------------


def _serve() -> None:
    """The template's main loop: one JSON request per line on stdin, one answer per line."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # a kernel that needs it imports it (and fails) as a cold one would
    import gc

    gc.collect()
    gc.freeze()  # the children share these pages instead of copying them at their first GC
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    codes: dict[int, int] = {}

    def reap(*_: Any) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            codes[pid] = os.waitstatus_to_exitcode(status)

    signal.signal(signal.SIGCHLD, reap)
    out = sys.stdout
    out.write(json.dumps({"pid": os.getpid()}) + "\n")
    out.flush()
    gates: dict[int, int] = {}
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "fork":
            gate_r, gate_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(gate_w)
                _child(req["argv"], req["cwd"], gate_r)
            os.close(gate_r)
            gates[pid] = gate_w
            answer: dict[str, Any] = {"pid": pid}
        elif req["op"] == "go":
            gate = gates.pop(req["pid"])
            os.write(gate, b"g")
            os.close(gate)
            answer = {"ok": True}
        else:  # "status"
            answer = {"code": codes.pop(req["pid"], None)}
        out.write(json.dumps(answer) + "\n")
        out.flush()


def _child(argv: list[str], cwd: str, gate: int) -> None:
    """A forked kernel: wait at the gate (the grader moves it into its own cgroup), then run
    ipykernel as ``python -m ipykernel_launcher`` would, on ``argv``. Never returns."""
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if os.read(gate, 1) != b"g":
            os._exit(1)  # the grader gave up on this kernel
        os.close(gate)
        os.chdir(cwd)  # the folder is made anew for each kernel
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1024)
        ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
        if "numpy" in sys.modules:  # a fresh process would draw its own seed
            sys.modules["numpy"].random.seed()
        sys.argv = ["ipykernel_launcher", *argv]
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=argv)
    finally:
        os._exit(0)


# -- in the grader ---------------------------------------------------------------------------


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


class ForkedKernel:
    """A forked kernel as ``subprocess.Popen`` looks to jupyter_client's provisioner: its
    pid, ``poll``, ``wait``, ``kill``, ``terminate`` and ``send_signal``."""

    def __init__(self, template: Template, pid: int, ns_pid: int, group: Cgroup) -> None:
        self.template, self.pid, self.ns_pid, self.group = template, pid, ns_pid, group
        self._pidfd = os.pidfd_open(pid)
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None  # its streams are the template's /dev/null

    def _ended(self, timeout: float) -> bool:
        if self._pidfd < 0:
            return True
        return bool(select.select([self._pidfd], [], [], timeout)[0])

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self._finish()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(timeout if timeout is not None else 1e9):
                raise subprocess.TimeoutExpired("forked kernel", timeout or 0)
            self._finish()
        assert self.returncode is not None
        return self.returncode

    def _finish(self) -> None:
        code = None
        for _ in range(20):  # the template reaps it an instant after it ends
            code = self.template.status(self.ns_pid)
            if code is not None:
                break
            time.sleep(0.005)
        self.returncode = code if code is not None else -signal.SIGKILL
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        """Every process of this kernel's cgroup, the kernel's children included."""
        if not kill_group(self.group):
            self.template.close()  # the template's pid namespace takes them all with it

    terminate = kill


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

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.scratch: Path | None = None
        self.group: Cgroup | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid = 0  # the template's pid as the grader sees it
        self.kernels = 0
        self._lock = threading.Lock()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        self.scratch = new_scratch({}, sandboxed=True)
        _all.add(self)
        self.group = new_cgroup(self.scratch.name, self.sandbox.processes,
                                self.sandbox.memory_total)
        cmd = self.sandbox.command(self.scratch, [sys.executable, "-m", __name__],
                                   self.group)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=self.scratch / "work")
        ns_pid = self._answer(START_TIMEOUT)["pid"]
        pid = _host_pid(self.group, ns_pid)
        if pid is None:
            raise TemplateError("the template's process is not in its cgroup")
        self.pid = pid

    def _answer(self, timeout: float = ANSWER_TIMEOUT) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        if not select.select([self.proc.stdout], [], [], timeout)[0]:
            raise TemplateError(f"the template did not answer within {timeout:g} s")
        line = self.proc.stdout.readline(4096)
        try:
            answer = json.loads(line)
        except ValueError:
            raise TemplateError("the template's answer is not JSON (it has ended)") from None
        if not isinstance(answer, dict):
            raise TemplateError("the template's answer is not an object")
        return answer

    def _ask(self, **req: Any) -> dict[str, Any]:
        if not self.alive:
            raise TemplateError("the template has ended")
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(req).encode() + b"\n")
            self.proc.stdin.flush()
            return self._answer()
        except (OSError, TemplateError):
            self.close()
            raise TemplateError("the template stopped answering") from None

    def status(self, ns_pid: int) -> int | None:
        """A forked kernel's exit code, once the template has reaped it."""
        try:
            code = self._ask(op="status", pid=ns_pid).get("code")
        except TemplateError:
            return None
        return code if isinstance(code, int) else None

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

    def fork(self, argv: list[str]) -> ForkedKernel:
        """A new kernel on ``argv`` (ipykernel's arguments), in a cgroup of its own."""
        assert self.group is not None and self.scratch is not None
        ns_pid = self._ask(op="fork", argv=argv, cwd=str(self.scratch / "work")).get("pid")
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
            kernel = ForkedKernel(self, pid, ns_pid, group)
            self._ask(op="go", pid=ns_pid)
        except (OSError, TemplateError):
            kill_group(group)
            group.remove()
            raise
        return kernel

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
            try:
                self.proc.kill()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
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
        from .engine import KernelStartFailure

        if "ipykernel_launcher" not in kernel_cmd:
            raise KernelStartFailure("the kernel is not ipykernel; it is started cold")
        for f in Path(self.connection_file).parent.glob("kernel*.json"):
            os.chown(f, NOBODY, NOBODY)
        argv = kernel_cmd[kernel_cmd.index("ipykernel_launcher") + 1:]
        try:
            kernel = self.template.fork(argv)
        except TemplateError as exc:
            raise KernelStartFailure(str(exc)) from None
        self.group = kernel.group
        prov = self.provisioner
        assert prov is not None
        prov.process, prov.pid, prov.pgid = kernel, kernel.pid, None  # type: ignore[attr-defined]
        self._reconcile_connection_info(prov.connection_info)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """After the kernel is shut down: every process of its cgroup, then the cgroup,
        goes; the sandbox stays, for :meth:`Template.reset`."""
        await super(SandboxKernelManager, self)._async_cleanup_resources(restart)
        if not restart and self.group is not None:
            if not kill_group(self.group):
                self.template.close()
            self.group.remove()
            self.group = None

    cleanup_resources = _async_cleanup_resources  # type: ignore[assignment]


_local = threading.local()
_all: set[Template] = set()


@atexit.register
def _close_every_template() -> None:
    for template in list(_all):
        template.close()


def template_for(readonly: tuple[str, ...]) -> Template:
    """This thread's template for a sandbox with ``readonly`` roots, started on first use
    (and again after one has ended)."""
    held: Template | None = getattr(_local, "template", None)
    if held is not None and (not held.alive or held.sandbox.readonly != readonly):
        held.close()
        held = None
    if held is None:
        held = Template(Sandbox(readonly))
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


if __name__ == "__main__":
    _serve()
