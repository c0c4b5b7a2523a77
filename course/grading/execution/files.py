"""Read and copy a submission folder as regular files only, never following a link.

A submission folder is written by a student (``nbgrader submit``/``collect`` keep what they
hand in), so anything in it may be hostile: a symbolic link to the source notebook, the
gradebook or a file only root may read; a link cycle (``loop -> .``); a named pipe that
blocks whoever opens it; a device node such as ``/dev/zero``. The grader runs as root, so
following any of them copies what it points at. Here the folder is walked with
:func:`os.fwalk` (directories held open, ``follow_symlinks=False``) and each file is opened
relative to its directory with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``: only
regular files are read, and everything else is skipped and named, with why.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def size_text(n: int) -> str:
    """``n`` bytes for a person: ``"210 MiB"``, ``"3.5 MiB"``, ``"812 KiB"``, ``"9 bytes"``."""
    if n >= 10 * 1024**2:
        return f"{n / 1024**2:.0f} MiB"
    if n >= 1024**2:
        return f"{n / 1024**2:.1f} MiB"
    return f"{round(n / 1024)} KiB" if n >= 1024 else f"{n} bytes"


@dataclass(frozen=True)
class Skipped:
    """An entry of the folder the grader did not take: its relative path and why."""

    path: str
    why: str

    def __str__(self) -> str:
        return f"{self.path} ({self.why})"


class Submission(dict):
    """A submission's regular files (relative path -> content), with what was skipped and,
    when the whole submission cannot be graded, why (``problem``). It pickles with both,
    so a pool or Dask worker sees them."""

    def __init__(self, files: dict[str, bytes] | None = None, *, skipped: list[Skipped] | None
                 = None, problem: str = "") -> None:
        super().__init__(files or {})
        self.skipped = list(skipped or [])
        self.problem = problem


def _walk(folder: Path, skipped: list[Skipped]) -> Iterator[tuple[str, str, int]]:
    """``(relative path, name, dir_fd)`` of every entry under ``folder`` that is not a
    directory and not skipped here; ``dir_fd`` is the open directory holding it. A link,
    pipe, device or socket is added to ``skipped``; so is a directory that cannot be read."""
    try:
        top = os.lstat(folder)
    except OSError as exc:
        skipped.append(Skipped(".", f"the submission folder cannot be read: {exc.strerror}"))
        return
    if not stat.S_ISDIR(top.st_mode):
        skipped.append(Skipped(".", f"the submission folder is {_kind(top.st_mode)}"))
        return

    def unreadable(exc: OSError) -> None:
        where = os.path.relpath(exc.filename, folder) if exc.filename else "?"
        skipped.append(Skipped(where, f"cannot be read: {exc.strerror}"))

    for dirpath, dirnames, filenames, dirfd in os.fwalk(folder, follow_symlinks=False,
                                                        onerror=unreadable):
        rel_dir = os.path.relpath(dirpath, folder)
        # fwalk lists a link to a directory among the directories (and then quietly does
        # not enter it): it is named as skipped here instead.
        for name in sorted(dirnames):
            try:
                mode = os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode
            except OSError as exc:
                mode, why = 0, f"cannot be read: {exc.strerror}"
            else:
                why = "" if stat.S_ISDIR(mode) else _kind(mode)
            if why:
                dirnames.remove(name)
                skipped.append(Skipped(name if rel_dir == "." else os.path.join(rel_dir, name),
                                       why))
        dirnames.sort()
        for name in sorted(filenames):
            rel = name if rel_dir == "." else os.path.join(rel_dir, name)
            try:
                mode = os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode
            except OSError as exc:
                skipped.append(Skipped(rel, f"cannot be read: {exc.strerror}"))
                continue
            if stat.S_ISREG(mode):
                yield rel, name, dirfd
            else:
                skipped.append(Skipped(rel, _kind(mode)))


def _open(name: str, dirfd: int) -> tuple[int, os.stat_result]:
    """An open descriptor of a regular file, or OSError (a file swapped for a link or a
    pipe since it was listed fails here too)."""
    fd = os.open(name, _OPEN, dir_fd=dirfd)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise OSError(0, _kind(st.st_mode))
    return fd, st


def read_submission(folder: Path, limit: int) -> Submission:
    """Every regular file under ``folder``, if together they are at most ``limit`` bytes;
    else no content and a ``problem`` naming the size and the limit."""
    skipped: list[Skipped] = []
    files: dict[str, bytes] = {}
    total, largest = 0, ("", 0)
    for rel, name, dirfd in _walk(folder, skipped):
        try:
            fd, st = _open(name, dirfd)
        except OSError as exc:
            skipped.append(Skipped(rel, exc.strerror or "cannot be read"))
            continue
        try:
            total += st.st_size
            largest = max(largest, (rel, st.st_size), key=lambda x: x[1])
            if total <= limit:
                with os.fdopen(fd, "rb", closefd=False) as f:
                    files[rel] = f.read(limit + 1)
        except OSError as exc:
            skipped.append(Skipped(rel, f"cannot be read: {exc.strerror}"))
        finally:
            os.close(fd)
    if total > limit:
        biggest = f" ({largest[0]} is {size_text(largest[1])})" if largest[0] else ""
        return Submission(skipped=skipped, problem=(
            f"the submission is {size_text(total)}{biggest}; the grader takes at most "
            f"{size_text(limit)}"))
    return Submission(files, skipped=skipped)


def copy_submission(src: Path, dst: Path, skip_suffix: str = "") -> list[Skipped]:
    """Copy the regular files under ``src`` into ``dst`` (created), except names ending in
    ``skip_suffix``; permission bits (no set-id bits) and modification times are kept.
    Returns what was not copied and why; never raises for one bad entry."""
    skipped: list[Skipped] = []
    dst.mkdir(parents=True, exist_ok=True)
    for rel, name, dirfd in _walk(src, skipped):
        if skip_suffix and name.endswith(skip_suffix):
            continue
        try:
            fd, st = _open(name, dirfd)
        except OSError as exc:
            skipped.append(Skipped(rel, exc.strerror or "cannot be read"))
            continue
        target = dst / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with os.fdopen(fd, "rb", closefd=False) as f, open(target, "wb") as out:
                while chunk := f.read(1 << 20):
                    out.write(chunk)
            os.chmod(target, stat.S_IMODE(st.st_mode) & 0o777)
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
        except OSError as exc:
            skipped.append(Skipped(rel, f"cannot be copied: {exc.strerror}"))
        finally:
            os.close(fd)
    return skipped


def skipped_note(skipped: list[Skipped], most: int = 5) -> str:
    """One line naming what was skipped (empty when nothing was)."""
    if not skipped:
        return ""
    shown = ", ".join(map(str, skipped[:most]))
    more = f" and {len(skipped) - most} more" if len(skipped) > most else ""
    return f"not taken from the submission (the grader reads regular files only): {shown}{more}"


def refusal(files: dict[str, bytes], notebook: str) -> str:
    """Why ``notebook`` of this submission cannot be graded, as the files say ("" when
    nothing does): the submission is too large, or the notebook is a link, pipe or device."""
    problem = getattr(files, "problem", "")
    if problem:
        return problem
    if notebook not in files:
        for s in getattr(files, "skipped", ()):
            if s.path == ".":
                return f"{s.why}; the grader reads regular files only"
            if s.path == notebook:
                return (f"{notebook} in the submission is {s.why}; the grader reads regular "
                        "files only")
    return ""
