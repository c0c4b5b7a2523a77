"""Kernels forked from a warm template: ipykernel, the SDK, numpy and matplotlib imported
once, a fresh kernel forked from that state whenever one is asked for.

A kernel started cold pays a Python start, ipykernel's import and ``import anthropic``
(about 0.8 s of CPU alone) before its first cell. A **template** (``python -m
course.kernelfork``) imports :data:`PRELOAD`, then forks one child per request; each child
waits at a gate until whoever asked lets it go, then runs ipykernel on the arguments it was
given, as ``python -m ipykernel_launcher`` would. The template speaks one JSON object per
line on stdin and stdout (:class:`TemplateProcess` is the other end).

Two users:

* the grader (``course.grading.execution.warm``), which runs the template inside its
  sandbox and moves each child into a cgroup of its own before the gate opens;
* the student's Validate button: :class:`ReadyKernelManager` is the kernel manager
  nbgrader's Validator uses in a student copy (``c.Execute.kernel_manager_class``). The
  Jupyter server keeps one template, started at the first click; every later click's kernel
  is forked from it in a fraction of a second. A kernel it cannot fork is started cold.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable
from typing import Any

from jupyter_client.manager import AsyncKernelManager

#: What the template imports before its first fork: the kernel itself, the libraries the
#: notebooks' first cells import, and the course's student-side modules every notebook
#: uses. ``course`` comes first, so ``rfc3987_syntax`` is deferred (:mod:`course.lazyiri`)
#: before ``jsonschema`` (about 0.16 s of a kernel's start) imports it. A fork shares this
#: state as it was before any kernel ran: no student code runs in the template, and its
#: imports happen before any submission's file is in its folder. Whoever starts a template
#: may name more modules (its command's arguments): the grader names those the notebooks
#: it grades import (:func:`course.grading.execution.warm.imports_of`).
PRELOAD = ("course", "ipykernel.kernelapp", "ipykernel.debugger", "anthropic", "numpy",
           "matplotlib", "matplotlib.pyplot", "matplotlib_inline.backend_inline", "jsonschema",
           "course.fakes", "course.cassette", "course.observe", "course.hub", "course.clock",
           "course.wire", "course.tokens", "course.trace",
           # imported on first use, in every kernel: the SDK's HTTP transport at the first
           # client, its tracing hook at the first request, the request inspector's helpers,
           # and what a kernel's start imports (about 35 ms of each Lab 1 kernel's CPU)
           "httpcore2", "opentelemetry.propagate", "course.live", "course.worlds.context_cache",
           "IPython.core.oinspect", "pdb", "sqlite3")
#: How long to wait for the template to start, and for any one answer from it.
START_TIMEOUT = 60.0
ANSWER_TIMEOUT = 10.0
_PR_SET_DUMPABLE = 4


class TemplateError(Exception):
    """The template did not do what was asked; the message says what."""


# -- the template process ------------------------------------------------------------------


def serve(extra: tuple[str, ...] = ()) -> None:
    """The template's main loop: imports :data:`PRELOAD` and ``extra``, then answers one JSON
    request per line on stdin, one answer per line.

    Requests: ``{"op": "fork", "argv": [...], "cwd": DIR, "session": bool}`` answers the
    child's ``pid``; ``{"op": "go", "pid": N}`` opens its gate; ``{"op": "status", "pid": N}``
    answers its exit ``code`` once it has ended (else null)."""
    for name in (*PRELOAD, *extra):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a kernel that needs it imports it (and fails)
            pass  # as a cold one would
    import gc

    gc.collect()
    gc.freeze()  # the children share these pages instead of copying them at their first GC
    # Not dumpable: a child running as the same user cannot ptrace the template or read its
    # memory, environment or file descriptors through /proc.
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
                _child(req["argv"], req["cwd"], gate_r, bool(req.get("session")))
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


def _child(argv: list[str], cwd: str, gate: int, session: bool) -> None:
    """A forked kernel: wait at the gate, then run ipykernel on ``argv`` in ``cwd`` (in a
    session of its own when ``session``, so its process group can be killed). Never
    returns."""
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        if os.read(gate, 1) != b"g":
            os._exit(1)  # whoever asked for it gave up on it
        os.close(gate)
        if session:
            os.setsid()
        os.chdir(cwd)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1024)
        ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
        if "numpy" in sys.modules:  # a fresh process would draw its own seed
            sys.modules["numpy"].random.seed()
        sys.argv = ["ipykernel_launcher", *argv]
        from ipykernel.kernelapp import IPKernelApp

        app = IPKernelApp.instance()
        app.initialize(argv)
        # The template imported the inline backend before any shell existed, so its
        # import-time hook (which makes every cell's figures display data) found none; run
        # it now, as a cold kernel's first import of the backend would.
        hook = getattr(sys.modules.get("matplotlib_inline.backend_inline"),
                       "_enable_matplotlib_integration", None)
        if hook is not None:
            hook()
        app.start()
    finally:
        os._exit(0)


# -- the other end -------------------------------------------------------------------------


class TemplateProcess:
    """A running template: ask it to fork, open a gate, or say how a child ended."""

    def __init__(self, cmd: list[str], cwd: str | None = None) -> None:
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=cwd)
        self._lock = threading.Lock()
        self.forked = 0  # how many kernels it has forked
        #: the template's pid as it sees itself (inside a pid namespace, not ours)
        self.own_pid = self._answer(START_TIMEOUT).get("pid")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def _answer(self, timeout: float = ANSWER_TIMEOUT) -> dict[str, Any]:
        assert self.proc.stdout is not None
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

    def ask(self, **req: Any) -> dict[str, Any]:
        """Send one request and read its answer; a template that fails to answer is
        killed, and :class:`TemplateError` raised."""
        with self._lock:
            if not self.alive:
                raise TemplateError("the template has ended")
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.write(json.dumps(req).encode() + b"\n")
                self.proc.stdin.flush()
                answer = self._answer()
            except (OSError, TemplateError):
                self.kill()
                raise TemplateError("the template stopped answering") from None
            if req.get("op") == "fork" and isinstance(answer.get("pid"), int):
                self.forked += 1
            return answer

    def status(self, pid: int) -> int | None:
        """A child's exit code, once the template has reaped it (None before, or if the
        template is gone)."""
        try:
            code = self.ask(op="status", pid=pid).get("code")
        except TemplateError:
            return None
        return code if isinstance(code, int) else None

    def kill(self) -> None:
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


class ForkedProcess:
    """A forked kernel as ``subprocess.Popen`` looks to jupyter_client's provisioner: its
    pid, ``poll``, ``wait``, ``kill``, ``terminate`` and ``send_signal``. ``kill_all``
    kills it with every process it started."""

    def __init__(self, template: TemplateProcess, pid: int, child_pid: int,
                 kill_all: Callable[[], None]) -> None:
        #: its pid here, and as the template sees it (they differ across a pid namespace)
        self.pid, self.child_pid = pid, child_pid
        self.template, self.kill_all = template, kill_all
        self._pidfd = os.pidfd_open(pid)
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None  # its streams are /dev/null

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
            code = self.template.status(self.child_pid)
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
        self.kill_all()

    terminate = kill


# -- the client's side ----------------------------------------------------------------------

#: How soon a client's sockets try again to reach a kernel that has not bound its own yet
#: (ZeroMQ's ``RECONNECT_IVL``, 100 ms by default), and how often a kernel being stopped is
#: looked at until it has ended (jupyter_client looks every 0.1 s, the first time before the
#: kill has taken effect).
RECONNECT_MS = 10
STOP_POLL = 0.005


class QuickKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` without jupyter_client's fixed waits, which a forked kernel
    (ready in about 0.1 s) would otherwise spend most of its start and stop in: its clients
    reconnect every :data:`RECONNECT_MS` and are ready as :func:`ready` says, and a stopped
    kernel is looked at every :data:`STOP_POLL` seconds. The grader's kernels and the
    student's Validate use it."""

    def client(self, **kwargs: Any) -> Any:
        import zmq

        (kwargs.get("context") or self.context).setsockopt(zmq.RECONNECT_IVL, RECONNECT_MS)
        kc = super().client(**kwargs)
        kc.wait_for_ready = types.MethodType(ready, kc)
        return kc

    async def _async_wait(self, pollinterval: float = 0.1) -> None:
        await super()._async_wait(pollinterval=min(pollinterval, STOP_POLL))


async def ready(self: Any, timeout: float | None = None) -> None:
    """``wait_for_ready`` for a jupyter_client ``AsyncKernelClient`` (bind it to one with
    ``types.MethodType``): jupyter_client 8's own, less its last step, which reads IOPub until
    it has been silent for 0.2 s (``client.py``, "Flush IOPub channel"): 0.2 s on every
    kernel, twice what a forked kernel takes to start. The kernel is ready, as there, once
    it has answered ``kernel_info`` and IOPub has delivered a message (ipykernel 7 sends
    ``iopub_welcome`` to each subscriber); what IOPub already holds is read, and whatever
    comes later names no cell's request, so nbclient, which keeps only messages whose parent
    is the cell it runs, drops it."""
    from queue import Empty

    deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
    while True:
        self.kernel_info()
        try:
            msg = await self.shell_channel.get_msg(timeout=1)
        except Empty:
            pass
        else:
            if msg["msg_type"] == "kernel_info_reply":
                try:
                    await self.iopub_channel.get_msg(timeout=0.2)
                except Empty:
                    pass  # IOPub is not connected yet: ask again
                else:
                    self._handle_kernel_info_reply(msg)
                    break
        if not await self._async_is_alive():
            raise RuntimeError("Kernel died before replying to kernel_info")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")
    while True:
        try:
            await self.iopub_channel.get_msg(timeout=0)
        except Empty:
            return


# -- the student's Validate ----------------------------------------------------------------

_template: TemplateProcess | None = None
_template_lock = threading.Lock()


def local_template() -> TemplateProcess:
    """This process's template (unsandboxed: the student's own machine), started on first
    use and again after it has ended."""
    global _template
    with _template_lock:
        if _template is None or not _template.alive:
            _template = TemplateProcess([sys.executable, "-m", __name__])
        return _template


def prewarm() -> None:
    """Start this process's template now (on a thread of its own, say), if it can be."""
    try:
        local_template()
    except (OSError, TemplateError):
        pass  # the first kernel asked for is started cold, or tries again


def _kill_session(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ReadyKernelManager(QuickKernelManager):
    """nbgrader's Validator's kernel manager in a student copy: an ipykernel is forked from
    this process's warm template instead of started cold (anything else starts cold)."""

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: Any) -> None:
        if "ipykernel_launcher" in kernel_cmd:
            argv = kernel_cmd[kernel_cmd.index("ipykernel_launcher") + 1:]
            try:
                template = local_template()
                pid = template.ask(op="fork", argv=argv, cwd=str(kw.get("cwd") or os.getcwd()),
                                   session=True).get("pid")
                if not isinstance(pid, int):
                    raise TemplateError("the template did not fork")
                kernel = ForkedProcess(template, pid, pid, lambda: _kill_session(pid))
                template.ask(op="go", pid=pid)
            except (OSError, TemplateError):
                pass  # started cold below
            else:
                prov = self.provisioner
                assert prov is not None
                prov.process, prov.pid, prov.pgid = kernel, pid, pid  # type: ignore[attr-defined]
                self._reconcile_connection_info(prov.connection_info)
                return
        await super()._async_launch_kernel(kernel_cmd, **kw)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """A student copy enables this module as a Jupyter server extension."""
    return [{"module": "course.kernelfork"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Start the template beside the server, so the first Validate is as quick as the rest."""
    threading.Thread(target=prewarm, daemon=True, name="validate-template").start()


if __name__ == "__main__":
    serve(tuple(sys.argv[1:]))
