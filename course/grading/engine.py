"""Grade one submission: restore the tests, run it in a fresh sandboxed kernel, return the
executed notebook. No gradebook here: the parent process writes grades (see :mod:`.grade`).

:func:`grade_job` is the unit of work the local pool (:mod:`.pool`) and a Dask cluster both
run. It takes a :class:`Job` holding everything it needs (the submission's files and the
source notebook) and returns an :class:`Outcome`; it never raises, so one submission's
failure costs that submission only.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import shutil
import time
from dataclasses import dataclass, field
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode

from . import probe
from .runner import KERNEL_ARGS

#: Per-cell limit, as in ``nbgrader_config.py`` (``c.Execute.timeout``).
CELL_TIMEOUT = 30
STARTUP_TIMEOUT = 60


@dataclass
class Job:
    """Everything a worker needs to grade one (student, assignment) notebook."""

    student: str
    assignment: str
    notebook: str  # notebook name without .ipynb
    files: dict[str, bytes]  # the submission folder, relative path -> content
    source: str  # the source (master) notebook as JSON text
    cell_timeout: float = CELL_TIMEOUT
    total_timeout: float = 600
    sandboxed: bool = True
    readonly: tuple[str, ...] = ()
    trusted: tuple[str, ...] = ()


@dataclass
class Outcome:
    """What grading one submission produced. ``executed`` is the notebook JSON when ok."""

    student: str
    assignment: str
    notebook: str
    ok: bool
    error: str = ""
    executed: str = ""
    review: list[str] = field(default_factory=list)
    seconds: float = 0.0
    attempts: int = 1


class GradeFailure(Exception):
    """A submission that cannot be graded; the message is the one-line reason."""


class KernelStartFailure(GradeFailure):
    """The kernel did not come up; grading it once more may work."""


def _meta(cell: NotebookNode) -> dict[str, Any]:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def is_test(cell: NotebookNode) -> bool:
    m = _meta(cell)
    return bool(m.get("grade")) and not m.get("solution") and cell.cell_type == "code"


def parse_submission(text: str, name: str) -> NotebookNode:
    """The submitted notebook, or :class:`GradeFailure` naming what is wrong with it."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GradeFailure(f"not a notebook: invalid JSON at line {exc.lineno} "
                           f"({exc.msg})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        raise GradeFailure("not a notebook: it has no list of cells")
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises several types for bad notebooks
        raise GradeFailure(f"not a notebook: {str(exc).splitlines()[0][:120]}") from None
    seen: set[str] = set()
    for cell in nb.cells:
        gid = _meta(cell).get("grade_id")
        if gid:
            if gid in seen:
                raise GradeFailure(f"cell id {gid!r} appears twice")
            seen.add(gid)
    return nb


def restore(sub: NotebookNode, source: NotebookNode) -> NotebookNode:
    """The submission with every test and locked cell put back as the source has it,
    nbgrader metadata taken from the source, and cells the source does not know ungraded.
    A test cell the student deleted stays deleted (it then scores 0)."""
    by_id = {_meta(c)["grade_id"]: c for c in source.cells if _meta(c).get("grade_id")}
    for cell in sub.cells:
        gid = _meta(cell).get("grade_id")
        if not gid:
            continue
        if gid not in by_id:
            cell.metadata.pop("nbgrader", None)
            continue
        src = by_id[gid]
        m = _meta(src)
        if m.get("locked") or (m.get("grade") and not m.get("solution")):
            cell.source = src.source
        if cell.cell_type != src.cell_type:
            cell.cell_type = src.cell_type
            if src.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
            else:
                cell.pop("outputs", None)
                cell.pop("execution_count", None)
        cell.metadata["nbgrader"] = dict(m)
    for cell in sub.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    sub.metadata["kernelspec"] = source.metadata.get(
        "kernelspec", {"name": "python3", "display_name": "Python 3", "language": "python"})
    return sub


MAX_LINES = 1000
MAX_CELL_OUTPUT = 1_000_000  # characters; a larger output is dropped with a note


def limit_output(nb: NotebookNode) -> NotebookNode:
    """Long streams cut to :data:`MAX_LINES` lines, huge outputs dropped (as nbgrader's
    LimitOutput does), so a submission cannot bloat the autograded notebook."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.outputs:
            if len(json.dumps(out)) > MAX_CELL_OUTPUT:
                kept.append(nbformat.v4.new_output(
                    "stream", name="stdout", text="[output dropped by the grader: too large]\n"))
                continue
            if out.get("output_type") == "stream":
                lines = out.text.splitlines(keepends=True)
                if len(lines) > MAX_LINES:
                    out.text = "".join(lines[:MAX_LINES]) + "[... output cut by the grader]\n"
            kept.append(out)
        cell.outputs = kept
    return nb


def _where(cell: NotebookNode | None, index: int) -> str:
    gid = _meta(cell).get("grade_id") if cell is not None else None
    return f"cell {gid}" if gid else f"cell {index + 1}"


class GradingClient(NotebookClient):
    """nbclient with a sandboxed kernel, a tamper probe before each graded test cell, and
    failures that say what happened."""

    def __init__(self, nb: NotebookNode, job: Job, km: Any) -> None:
        super().__init__(nb, km=km, timeout=job.cell_timeout, allow_errors=True,
                         interrupt_on_timeout=True, startup_timeout=STARTUP_TIMEOUT,
                         record_timing=False, store_widget_state=False,
                         shutdown_kernel="immediate",
                         extra_arguments=[*KERNEL_ARGS, "--InteractiveShell.xmode=Minimal"])
        self.job = job
        self.timed_out: list[str] = []
        self.review: list[str] = []
        self._current = "before the first cell"

    async def _async_handle_timeout(self, timeout: int, cell: NotebookNode | None = None):
        self.timed_out.append(self._current)
        return await super()._async_handle_timeout(timeout, cell)

    async def _silent(self, code: str, expressions: dict[str, str] | None = None
                      ) -> dict[str, Any] | None:
        assert self.kc is not None
        msg_id = self.kc.execute(code, silent=True, store_history=False,
                                 user_expressions=expressions or {})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                msg = await self.kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            except Exception:  # queue.Empty under a timeout
                break
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                return msg
        return None

    async def _probe(self) -> dict[str, Any] | None:
        expr, nonce = probe.expression(list(self.job.trusted))
        reply = await self._silent("", {"probe": expr})
        return probe.read(reply, nonce) if reply else None

    async def _canary(self) -> bool:
        code, nonce = probe.canary()
        reply = await self._silent(code)
        content = (reply or {}).get("content", {})
        return content.get("status") == "error" and nonce in str(content.get("evalue", ""))

    async def grade(self) -> None:
        try:
            setup = self.async_setup_kernel()
            await setup.__aenter__()
            baseline = await self._probe()
        except Exception as exc:  # noqa: BLE001 - any failure to start is retried once
            await self._stop()
            raise KernelStartFailure((str(exc).splitlines() or [type(exc).__name__])[0]
                                     ) from None
        if baseline is None:
            await setup.__aexit__(None, None, None)
            await self._stop()
            raise KernelStartFailure("the kernel did not answer the grader before the "
                                     "first cell")
        try:
            await self._cells(baseline)
        finally:
            await setup.__aexit__(None, None, None)
            await self._stop()

    async def _stop(self) -> None:
        """Kill the kernel now: its whole sandbox (pid namespace) goes with it. nbclient
        leaves a kernel it did not create running, and a worker grades many submissions."""
        if self.km is not None:
            try:
                await self._async_cleanup_kernel()
            except Exception:  # noqa: BLE001 - already dead is fine
                pass

    async def _cells(self, baseline: dict[str, Any]) -> None:
        for index, cell in enumerate(self.nb.cells):
            self._current = _where(cell, index)
            if is_test(cell):
                found = probe.changes(baseline, await self._probe())
                if not await self._canary():
                    found.append("a failing assertion did not fail (errors are swallowed)")
                for what in found:
                    if what not in self.review:
                        self.review.append(what)
            try:
                await self.async_execute_cell(cell, index)
            except DeadKernelError:
                code = self._exit_code()
                raise GradeFailure(f"kernel died in {self._current} "
                                   f"(exit code {code})") from None

    def _exit_code(self) -> str:
        proc = getattr(getattr(self.km, "provisioner", None), "process", None)
        if proc is None:
            return "unknown"
        try:
            code = proc.wait(timeout=5)
        except Exception:
            return "unknown"
        return str(code)


async def _run(job: Job, nb: NotebookNode) -> GradingClient:
    from .sandbox import Sandbox, make_kernel_manager, new_scratch

    scratch = new_scratch(job.files, job.sandboxed)
    try:
        km = make_kernel_manager(scratch, Sandbox(job.readonly) if job.sandboxed else None,
                                 nb.metadata.get("kernelspec", {}).get("name", "python3"))
        client = GradingClient(nb, job, km)
        try:
            await asyncio.wait_for(client.grade(), timeout=job.total_timeout)
        except TimeoutError:
            raise GradeFailure(f"timed out after {job.total_timeout:g} s in "
                               f"{client._current}") from None
        finally:
            atexit.unregister(client._cleanup_kernel)
        return client
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _started(client: GradingClient | None) -> bool:
    return client is not None and client.kc is not None


_sandbox_checked: dict[tuple[str, ...], str] = {}


def _check_sandbox_here(readonly: tuple[str, ...]) -> None:
    """Once per worker process (a cluster worker may be a machine of its own): can this
    machine create the sandbox? Raises :class:`GradeFailure` with the reason if not."""
    from .sandbox import Sandbox, check_sandbox

    if readonly not in _sandbox_checked:
        try:
            check_sandbox(Sandbox(readonly))
            _sandbox_checked[readonly] = ""
        except Exception as exc:  # noqa: BLE001 - SandboxUnavailable or a missing path
            _sandbox_checked[readonly] = str(exc)
    if _sandbox_checked[readonly]:
        raise GradeFailure(f"no sandbox on this worker: {_sandbox_checked[readonly]}")


def grade_job(job: Job) -> Outcome:
    """Grade one submission in a fresh kernel; never raises."""
    start = time.monotonic()
    out = Outcome(job.student, job.assignment, job.notebook, ok=False)
    try:
        if job.sandboxed:
            _check_sandbox_here(job.readonly)
        name = f"{job.notebook}.ipynb"
        if name not in job.files:
            raise GradeFailure(f"no {name} in the submission")
        try:
            text = job.files[name].decode("utf-8")
        except UnicodeDecodeError:
            raise GradeFailure("not a notebook: the file is not UTF-8 text") from None
        nb = restore(parse_submission(text, name), nbformat.reads(job.source, as_version=4))
        for attempt in (1, 2):
            out.attempts = attempt
            try:
                client = asyncio.run(_run(job, nbformat.from_dict(nb)))
                break
            except KernelStartFailure as exc:
                # A kernel that fails to start is retried once.
                if attempt == 2:
                    raise GradeFailure(f"kernel failed to start twice: {exc}") from None
        executed = limit_output(client.nb)
        if client.timed_out:
            # A timed-out cell scores 0 (its error output says so); the reason is kept.
            out.error = (f"timed out after {job.cell_timeout:g} s in "
                         f"{', '.join(dict.fromkeys(client.timed_out))}")
        out.review = client.review
        out.executed = nbformat.writes(executed)
        out.ok = True
    except GradeFailure as exc:
        out.error = str(exc)
    except Exception as exc:  # noqa: BLE001 - one submission's crash stays its own
        first = (str(exc).splitlines() or [""])[0][:200]
        out.error = f"grader error: {type(exc).__name__}: {first}"
    out.seconds = time.monotonic() - start
    return out
