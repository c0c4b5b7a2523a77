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
* an unprivileged user (``nobody``) and limits on memory and file size;
* caps a hostile submission cannot lift: a private ``/tmp`` and a scratch folder, each a
  tmpfs of its own that the grader mounts (as root) with a size and a file count
  (:data:`TMP_BYTES` and :data:`TMP_INODES`, :data:`WORK_BYTES` and :data:`WORK_INODES`;
  nothing written reaches the host's disk, and the mounts are gone with the kernel); and
  a cgroup of its own (:class:`Cgroup`) holding at most :data:`MAX_PROCESSES` tasks and
  :data:`MEMORY_TOTAL` bytes of memory, its tmpfs pages included. Both caps are per
  sandbox: every sandbox runs as ``nobody``, so a per-uid process limit lets one
  submission that holds every slot stop the next student's kernel from starting, and a
  per-process memory limit lets a submission that forks many large processes take the
  host's memory from every other kernel.

The grader and the kernel talk over ZeroMQ ``ipc`` sockets in the scratch folder, which
is mounted at the same path inside and outside the sandbox.
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import course
from course.kernelfork import QuickKernelManager

from ..runner import PipelineError

NOBODY = 65534
#: Limits for the kernel process tree: address space of each process, tasks (processes and
#: threads) and memory of the whole sandbox (its cgroup), the largest file it may write.
MEMORY_BYTES = 4 * 1024**3
MAX_PROCESSES = 512
MEMORY_TOTAL = 2 * 1024**3
MAX_FILE_BYTES = 64 * 1024**2
#: The sandbox's private /tmp: a tmpfs (host memory) of this size and at most TMP_INODES
#: files; without a file count, empty files cost kernel memory the size never counts.
TMP_BYTES = 256 * 1024**2
TMP_INODES = 65536
#: The quota of the scratch folder (the submission's copy, the kernel's HOME and sockets):
#: a tmpfs of this size and at most WORK_INODES files.
WORK_BYTES = 256 * 1024**2
WORK_INODES = 65536
#: Scratch folders are named after the worker that made them, so a worker that died
#: without unmounting its own can be told apart from one still grading.
_SCRATCH_PREFIX = "course-grade-"
_STALE = re.compile(rf"^{_SCRATCH_PREFIX}(\d+)-")
_CGROUP_NAME = "course-grade"
#: The controllers each sandbox's cgroup uses.
_CONTROLLERS = ("pids", "memory")

_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32")
_SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group",
                 "/etc/nsswitch.conf", "/etc/mime.types")
_CA_DIRS = ("/etc/ssl", "/etc/pki", "/etc/ca-certificates")
#: Fontconfig's configuration and the system's font cache: matplotlib asks ``fc-list`` for
#: fonts the first time it draws, and without its config file fontconfig writes
#: "Fontconfig error: Cannot load default config file" into the notebook's outputs.
_FONT_DIRS = ("/etc/fonts", "/var/cache/fontconfig")


class SandboxUnavailable(PipelineError):
    """The sandbox cannot be created on this machine; the message says why in one line."""


@dataclass(frozen=True)
class Sandbox:
    """How to wrap a kernel command: the read-only roots it may see and its limits."""

    readonly: tuple[str, ...]
    memory: int = MEMORY_BYTES
    processes: int = MAX_PROCESSES
    memory_total: int = MEMORY_TOTAL
    file_size: int = MAX_FILE_BYTES

    def command(self, scratch: Path, argv: list[str], group: Cgroup | None = None
                ) -> list[str]:
        """``argv`` run inside the sandbox with ``scratch`` (from :func:`new_scratch`) as its
        only writable folder and that scratch's tmpfs as ``/tmp``; with ``group`` (from
        :func:`new_cgroup`) the whole sandbox runs in it."""
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailable("bubblewrap (bwrap) is not installed; install it with "
                                     "`apt-get install bubblewrap` or pass --no-sandbox")
        # The shell joins the cgroup, then becomes bubblewrap: every task of the sandbox
        # is born in it, and nothing inside can leave it (no /sys, no privilege).
        join = (["/bin/sh", "-c", 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; '
                 'shift; done; shift; exec "$@"', "join", *group.procs(), "--"]
                if group is not None else [])
        # The per-uid process limit counts every sandbox (all run as nobody), so it is set
        # as high as it may go (the hard limit; raising that needs CAP_SYS_RESOURCE) and the
        # cgroup caps this sandbox alone.
        hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        nproc = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
        cmd = [*join, bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net",
               "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname",
               "grader", "--proc", "/proc", "--dev", "/dev",
               "--bind", str(tmp_of(scratch)), "/tmp"]
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
        for d in (*_CA_DIRS, *_FONT_DIRS):
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
                # plots go out as display data, as in JupyterLab, for feedback to keep
                # (sanitize.py writes each one again as a PNG of the grader's own)
                "--setenv", "MPLCONFIGDIR", "/tmp",
                "--setenv", "MPLBACKEND", "module://matplotlib_inline.backend_inline",
                "--setenv", "PYTHONNOUSERSITE", "1", "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
                "--setenv", "OPENBLAS_NUM_THREADS", "1",
                # ipykernel polls this pid to notice a dead parent; in the pid namespace the
                # grader's pid means nothing, and --die-with-parent does the job instead.
                "--unsetenv", "JPY_PARENT_PID",
                "--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
                "prlimit", f"--as={self.memory}", f"--nproc={nproc}",
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


# -- quotas: the scratch folder and /tmp, each a tmpfs of its own -------------------------

_libc = ctypes.CDLL(None, use_errno=True)
_MS_NOSUID, _MS_NODEV = 2, 4
_MNT_DETACH = 2
#: Folders this process mounted a tmpfs on and has not released yet.
_mounted: set[str] = set()


def tmp_of(scratch: Path) -> Path:
    """The folder mounted as the sandbox's ``/tmp``: beside ``scratch``, named after it."""
    return scratch.with_name(scratch.name + "-tmp")


def _mount_quota(path: Path, size: int, inodes: int, mode: str, what: str) -> None:
    opts = f"size={size},nr_inodes={inodes},mode={mode},uid={NOBODY},gid={NOBODY}"
    if _libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", _MS_NOSUID | _MS_NODEV,
                   opts.encode()) != 0:
        err = ctypes.get_errno()
        raise SandboxUnavailable(
            f"cannot give the grading sandbox {what} of at most {size // 1024**2} MiB: "
            f"mount -t tmpfs {path} failed ({os.strerror(err)}); the sandboxed grader "
            "must run as root with CAP_SYS_ADMIN, or pass --no-sandbox")
    _mounted.add(str(path))


def _unmount(path: str) -> None:
    """Detach a tmpfs this process mounted: its memory is freed once the sandbox is gone."""
    if _libc.umount2(os.fsencode(path), _MNT_DETACH) == 0 or ctypes.get_errno() in (
            errno.EINVAL, errno.ENOENT):
        _mounted.discard(path)


def _mountpoints() -> list[str]:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    # field 5 is the mount point, with space, tab, newline and backslash octal-escaped
    return [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), ln.split(" ")[4])
            for ln in lines if len(ln.split(" ")) > 4]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale() -> None:
    """Unmount and remove scratch folders, their /tmp and cgroups left by a worker that
    died."""
    tmp = os.path.realpath(tempfile.gettempdir())
    for mp in _mountpoints():
        m = _STALE.match(os.path.basename(mp))
        if m and os.path.dirname(mp) == tmp and not _alive(int(m[1])):
            _unmount(mp)
            shutil.rmtree(mp, ignore_errors=True)
    for parent in _parents(create=False):
        for group in parent.iterdir() if parent.is_dir() else ():
            m = _STALE.match(group.name)
            if group.is_dir() and m and not _alive(int(m[1])):
                try:
                    group.rmdir()
                except OSError:
                    pass


def release_scratch(scratch: Path) -> None:
    """Give back what :func:`new_scratch` took: the mounts of the scratch folder and of its
    ``/tmp``, and that ``/tmp`` folder. (The caller removes the scratch folder itself, as
    before.) Safe to call twice."""
    for path in (scratch, tmp_of(scratch)):
        if str(path) in _mounted:
            _unmount(str(path))
    shutil.rmtree(tmp_of(scratch), ignore_errors=True)


@atexit.register
def _release_all() -> None:
    for path in list(_mounted):
        _unmount(path)
        shutil.rmtree(path, ignore_errors=True)


# -- caps on the whole sandbox: a cgroup of its own (tasks and memory) ---------------------


def _here(controller: str) -> str:
    """This process's cgroup path in a v1 hierarchy holding ``controller``."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            if controller in controllers.split(","):
                return path
    except (OSError, ValueError):
        pass
    return "/"


def _parents(create: bool = True) -> list[Path]:
    """The cgroups every sandbox's own group is made in: one per controller under cgroup
    v1, a single one holding both under v2 (created when ``create``). A controller this
    machine lacks is left out; :func:`new_cgroup` names it."""
    v2 = Path("/sys/fs/cgroup")
    if not (v2 / "cgroup.controllers").exists():
        found = []
        for controller in _CONTROLLERS:
            root = v2 / controller
            if not (root / "cgroup.procs").exists():
                continue
            parent = root / _here(controller).lstrip("/") / _CGROUP_NAME
            if not parent.parent.is_dir():  # our own group is not visible here (a container)
                parent = root / _CGROUP_NAME
            if create:
                parent.mkdir(exist_ok=True)
            found.append(parent)
        return found
    try:
        have = (v2 / "cgroup.controllers").read_text().split()
    except OSError:
        return []
    wanted = [c for c in _CONTROLLERS if c in have]
    parent = v2 / _CGROUP_NAME
    if create and wanted:
        enable = " ".join(f"+{c}" for c in wanted)
        (v2 / "cgroup.subtree_control").write_text(enable)
        parent.mkdir(exist_ok=True)
        (parent / "cgroup.subtree_control").write_text(enable)
    return [parent] if wanted else []


@dataclass(frozen=True)
class Cgroup:
    """One sandbox's cgroup (one folder per controller under v1, one under v2): its first
    task joins every folder, so every task of the sandbox is counted in each."""

    folders: tuple[Path, ...]

    def procs(self) -> list[str]:
        return [str(f / "cgroup.procs") for f in self.folders]

    def oom_kills(self) -> int:
        """How many of the sandbox's processes the kernel killed at its memory cap."""
        for f in self.folders:
            for name in ("memory.events", "memory.oom_control"):  # v2, v1
                try:
                    text = (f / name).read_text()
                except OSError:
                    continue
                m = re.search(r"^oom_kill (\d+)$", text, re.M)
                if m:
                    return int(m[1])
        return 0

    def remove(self, wait: float = 3.0) -> None:
        """Remove the cgroup once its last task has exited (the sandbox is being killed)."""
        deadline = time.monotonic() + wait
        for folder in self.folders:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left to the next sweep, which removes it once it is empty
                    time.sleep(0.05)


def _write_first(folder: Path, names: tuple[str, ...], value: int) -> None:
    """Write ``value`` to the first of ``names`` this cgroup has (v2's name, then v1's)."""
    for name in names:
        if (folder / name).exists():
            (folder / name).write_text(str(value))
            return
    raise OSError(errno.ENOENT, f"{folder} has none of {', '.join(names)}")


def new_cgroup(name: str, processes: int, memory: int) -> Cgroup:
    """A new cgroup holding at most ``processes`` tasks and ``memory`` bytes (its tmpfs
    pages included, and swap, where the machine accounts for it), or
    :class:`SandboxUnavailable` naming what is missing."""
    made: list[Path] = []
    try:
        parents = _parents()
        for parent in parents:
            group = parent / name
            group.mkdir()
            made.append(group)
        have = {c for g in made for c in _CONTROLLERS if (g / f"{c}.max").exists()
                or (g / f"{c}.limit_in_bytes").exists()}
        if missing := [c for c in _CONTROLLERS if c not in have]:
            raise OSError(errno.ENOENT, f"this kernel has no cgroup {' or '.join(missing)} "
                                        "controller")
        for group in made:
            if (group / "pids.max").exists():
                (group / "pids.max").write_text(str(processes))
            if (group / "memory.max").exists() or (group / "memory.limit_in_bytes").exists():
                _write_first(group, ("memory.max", "memory.limit_in_bytes"), memory)
                # Swap counted in the same cap (v1) or none at all (v2), where accounted.
                for swap, value in (("memory.memsw.limit_in_bytes", memory),
                                    ("memory.swap.max", 0)):
                    if (group / swap).exists():
                        (group / swap).write_text(str(value))
        return Cgroup(tuple(made))
    except OSError as exc:
        Cgroup(tuple(made)).remove(wait=0)
        raise SandboxUnavailable(
            f"cannot cap the grading sandbox at {processes} processes and "
            f"{memory // 1024**2} MiB of memory: no writable cgroup "
            f"({exc.strerror or exc}); the sandboxed grader must run as root with "
            "/sys/fs/cgroup writable, or pass --no-sandbox") from None


def new_scratch(files: dict[str, bytes], sandboxed: bool, quota: int = WORK_BYTES) -> Path:
    """A private scratch folder holding ``work/`` (the submission's files) for one kernel.
    Sandboxed, it is a tmpfs of at most ``quota`` bytes, and a second tmpfs beside it
    (:func:`tmp_of`) becomes the sandbox's ``/tmp`` (see :func:`release_scratch`)."""
    if sandboxed:
        sweep_stale()
    scratch = Path(tempfile.mkdtemp(prefix=f"{_SCRATCH_PREFIX}{os.getpid()}-"))
    if sandboxed:
        tmp = tmp_of(scratch)
        try:
            _mount_quota(scratch, quota, WORK_INODES, "0700", "a working folder")
            tmp.mkdir()
            _mount_quota(tmp, TMP_BYTES, TMP_INODES, "1777", "a /tmp")
        except SandboxUnavailable:
            release_scratch(scratch)
            scratch.rmdir()
            raise
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


class SandboxKernelManager(QuickKernelManager):
    """Starts ipykernel inside :class:`Sandbox`, talking over ipc sockets in the scratch folder.

    Set ``scratch`` and ``sandbox`` before starting. With ``sandbox = None`` the kernel runs
    unsandboxed (``--no-sandbox``) but still in the scratch folder over ipc.
    """

    scratch: Path
    sandbox: Sandbox | None = None
    group: Cgroup | None = None

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw):  # type: ignore[override]
        if self.sandbox is not None:
            for f in Path(self.connection_file).parent.glob("kernel*.json"):
                os.chown(f, NOBODY, NOBODY)
            if self.group is None:
                self.group = new_cgroup(self.scratch.name, self.sandbox.processes,
                                        self.sandbox.memory_total)
            kernel_cmd = self.sandbox.command(self.scratch, kernel_cmd, self.group)
        kw["cwd"] = str(self.scratch / "work")
        # The kernel's own start-up chatter is not the grader's output; what a cell prints
        # reaches the notebook over the iopub channel.
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return await super()._async_launch_kernel(kernel_cmd, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """After the kernel is shut down: its cgroup and its scratch folder's mount go."""
        await super()._async_cleanup_resources(restart)
        if not restart:
            if self.group is not None:
                self.group.remove()
                self.group = None
            release_scratch(self.scratch)

    cleanup_resources = _async_cleanup_resources  # type: ignore[assignment]


def make_kernel_manager(scratch: Path, sandbox: Sandbox | None, kernel_name: str = "python3",
                        manager: type[SandboxKernelManager] = SandboxKernelManager
                        ) -> SandboxKernelManager:
    km = manager(kernel_name=kernel_name, transport="ipc", ip=str(scratch / "kernel"),
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
    group = None
    try:
        group = new_cgroup(scratch.name, sb.processes, sb.memory_total)
        cmd = sb.command(scratch, [sys.executable, "-c", "print('ok')"], group)
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
        if group is not None:
            group.remove()
        release_scratch(scratch)
        shutil.rmtree(scratch, ignore_errors=True)
