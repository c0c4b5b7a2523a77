"""The OS sandbox every grading kernel runs in (bubblewrap), and the kernel manager that starts it.

A kernel that runs student code sees:

* its own scratch folder, a private copy of that one submission's folder, and nothing
  else writable except a private ``/tmp``;
* the Python environment and the support package, read-only, at their usual paths;
* no course tree: no ``source/``, ``release/``, ``solutions/``, ``gradebook.db``,
  ``nbgrader_config.py`` and no other student's files exist inside it;
* an empty network namespace (not even a route to loopback of the host), with
  :mod:`course.netguard` still installed as a second layer that explains itself;
* a pid namespace: when the kernel exits, every process it started dies with it;
* an unprivileged user (``nobody``) and limits on memory, processes and file size.

The grader and the kernel talk over ZeroMQ ``ipc`` sockets in the scratch folder, which
is mounted at the same path inside and outside the sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

import course

from .runner import PipelineError

NOBODY = 65534
#: Limits for the kernel process tree: address space, processes of the sandbox user,
#: the largest file it may write.
MEMORY_BYTES = 4 * 1024**3
MAX_PROCESSES = 512
MAX_FILE_BYTES = 64 * 1024**2

_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group",
                 "/etc/nsswitch.conf", "/etc/mime.types")
_CA_DIRS = ("/etc/ssl", "/etc/pki", "/etc/ca-certificates")


class SandboxUnavailable(PipelineError):
    """The sandbox cannot be created on this machine; the message says why in one line."""


@dataclass(frozen=True)
class Sandbox:
    """How to wrap a kernel command: the read-only roots it may see and its limits."""

    readonly: tuple[str, ...]
    memory: int = MEMORY_BYTES
    processes: int = MAX_PROCESSES
    file_size: int = MAX_FILE_BYTES

    def command(self, scratch: Path, argv: list[str]) -> list[str]:
        """``argv`` run inside the sandbox with ``scratch`` as its only writable folder."""
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed; install it with "
                                     "`apt-get install bubblewrap` or pass --no-sandbox")
        cmd = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc",
               "--unshare-uts", "--unshare-cgroup-try", "--hostname", "grader",
               "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
        # bubblewrap makes missing mount points private to root; the kernel runs as nobody.
        made: set[str] = set()
        for target in (*self.readonly, str(scratch)):
            for parent in reversed(Path(target).parents[:-1]):
                if str(parent) not in made and str(parent) != "/tmp":
                    made.add(str(parent))
                    cmd += ["--perms", "0755", "--dir", str(parent)]
        for d in _SYSTEM_DIRS:
            cmd += ["--ro-bind-try", d, d]
        # /etc itself world-readable, or the files bound below are private to root
        cmd += ["--perms", "0755", "--dir", "/etc"]
        for f in _SYSTEM_FILES:
            cmd += ["--ro-bind-try", f, f]
        # Public CA certificates: an SDK client builds its TLS context when it is created,
        # even for the fake served on loopback over plain HTTP (FakeAPI.serve).
        for d in _CA_DIRS:
            cmd += ["--ro-bind-try", d, d]
        for d in self.readonly:
            cmd += ["--ro-bind", d, d]
        work = str(scratch)
        cmd += ["--bind", work, work, "--chdir", str(scratch / "work"),
                "--setenv", "HOME", work, "--setenv", "TMPDIR", "/tmp",
                "--setenv", "IPYTHONDIR", f"{work}/.ipython",
                "--setenv", "JUPYTER_CONFIG_DIR", f"{work}/.jupyter",
                "--setenv", "JUPYTER_DATA_DIR", f"{work}/.jupyter",
                "--setenv", "JUPYTER_RUNTIME_DIR", f"{work}/.jupyter",
                "--setenv", "MPLCONFIGDIR", "/tmp", "--setenv", "MPLBACKEND", "Agg",
                "--setenv", "PYTHONNOUSERSITE", "1", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
                "--setenv", "OPENBLAS_NUM_THREADS", "1",
                # ipykernel polls this pid to notice a dead parent; in the pid namespace the
                # grader's pid means nothing, and --die-with-parent does the job instead.
                "--unsetenv", "JPY_PARENT_PID",
                "--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
                "prlimit", f"--as={self.memory}", f"--nproc={self.processes}",
                f"--fsize={self.file_size}", "--core=0", "--"]
        return cmd + argv


def default_sandbox() -> Sandbox:
    """The environment this grader runs in, read-only: the interpreter's prefixes and the
    folder the support package is imported from."""
    package = Path(course.__file__).resolve().parent
    roots = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix), str(package)}
    exe = os.path.realpath(sys.executable)
    if not any(exe.startswith(r + os.sep) for r in roots):
        roots.add(str(Path(exe).parent))
    # A root nested inside another would be mounted twice; keep the outermost.
    kept = sorted(r for r in roots
                  if not any(r != o and r.startswith(o + os.sep) for o in roots))
    return Sandbox(tuple(kept))


def trusted_roots(sandbox: Sandbox | None = None) -> list[str]:
    """Folders whose code the tamper probe trusts: everything the kernel sees read-only."""
    sb = sandbox or default_sandbox()
    return [*sb.readonly, *(d for d in _SYSTEM_DIRS)]


def new_scratch(files: dict[str, bytes], sandboxed: bool) -> Path:
    """A private scratch folder holding ``work/`` (the submission's files) for one kernel."""
    scratch = Path(tempfile.mkdtemp(prefix="course-grade-"))
    work = scratch / "work"
    work.mkdir()
    for rel, data in files.items():
        target = (work / rel).resolve()
        if work.resolve() not in target.parents:
            continue  # a path that climbs out of the folder is not part of it
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if sandboxed:
        for p in (scratch, *scratch.rglob("*")):
            os.chown(p, NOBODY, NOBODY, follow_symlinks=False)
        scratch.chmod(0o700)
    return scratch


class SandboxKernelManager(AsyncKernelManager):
    """Starts ipykernel inside :class:`Sandbox`, talking over ipc sockets in the scratch folder.

    Set ``scratch`` and ``sandbox`` before starting. With ``sandbox = None`` the kernel runs
    unsandboxed (``--no-sandbox``) but still in the scratch folder over ipc.
    """

    scratch: Path
    sandbox: Sandbox | None = None

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw):  # type: ignore[override]
        if self.sandbox is not None:
            for f in Path(self.connection_file).parent.glob("kernel*.json"):
                os.chown(f, NOBODY, NOBODY)
            kernel_cmd = self.sandbox.command(self.scratch, kernel_cmd)
        kw["cwd"] = str(self.scratch / "work")
        # The kernel's own start-up chatter is not the grader's output; what a cell prints
        # reaches the notebook over the iopub channel.
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return await super()._async_launch_kernel(kernel_cmd, **kw)


def make_kernel_manager(scratch: Path, sandbox: Sandbox | None,
                        kernel_name: str = "python3") -> SandboxKernelManager:
    km = SandboxKernelManager(kernel_name=kernel_name, transport="ipc",
                              ip=str(scratch / "kernel"),
                              connection_file=str(scratch / "kernel.json"))
    km.scratch = scratch
    km.sandbox = sandbox
    if km.kernel_spec is not None:
        # A signal to the process group would hit bubblewrap, which dies of it; ask the
        # kernel over its control channel instead.
        km.kernel_spec.interrupt_mode = "message"
    return km


def check_sandbox(sandbox: Sandbox | None = None) -> None:
    """Raise :class:`SandboxUnavailable` with a one-line reason unless a sandbox starts here."""
    sb = sandbox or default_sandbox()
    scratch = new_scratch({}, sandboxed=True)
    try:
        cmd = sb.command(scratch, [sys.executable, "-c", "print('ok')"])
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"the grading sandbox did not start ({exc}); "
                                     "pass --no-sandbox to grade without it") from None
        if proc.returncode != 0 or proc.stdout.strip() != "ok":
            why = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
            raise SandboxUnavailable(f"the grading sandbox did not start ({why}); "
                                     "pass --no-sandbox to grade without it")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
