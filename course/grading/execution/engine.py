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
import secrets
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode

from course.observe import RECORD_MIME

from ..authoring.markers import TestParts, split, test_parts
from ..runner import CELL_TIMEOUT, KERNEL_ARGS
from . import boundary, judge, probe
from .files import refusal
from .sanitize import nbgrader_meta as _meta
from .sanitize import sanitize

if TYPE_CHECKING:  # the hub imports the SDK; a worker imports it from its fork server
    from .fakehub import Hub

#: How long a kernel may take to start, in seconds.
STARTUP_TIMEOUT = 60
#: Everything one notebook's kernel may show, in characters of JSON: past it, outputs are
#: dropped (records are not outputs: they still reach the grader).
MAX_NOTEBOOK_OUTPUT = 5_000_000
#: The largest message a kernel may send the grader, in bytes, per channel: ZeroMQ drops a
#: larger one before it is read into the grader's memory, and the connection with it. The
#: shell channel carries replies (the tamper probe's is at most
#: :data:`.probe.MAX_ANSWER_CHARS`); IOPub carries outputs, and ipykernel sends what a cell
#: prints within a flush interval as one message (a record is at most
#: :data:`.judge.MAX_RECORD_CHARS`; what is kept of outputs, :data:`MAX_NOTEBOOK_OUTPUT`).
MAX_KERNEL_MESSAGE = 16 * 1024**2
MAX_IOPUB_MESSAGE = 128 * 1024**2
#: How long the grader waits to hand the kernel a message before it gives the kernel up.
SEND_TIMEOUT = 10.0
_SILENCED = ("the kernel stopped taking the grader's messages (the grader drops a message "
             f"over {MAX_KERNEL_MESSAGE // 1024**2} MiB, or an output over "
             f"{MAX_IOPUB_MESSAGE // 1024**2} MiB, from a kernel, and its connection with it)")


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
    #: Sandboxed, start its kernel as a fork of a warm template (:mod:`.warm`) rather than
    #: cold; a kernel that fails to start that way is started cold.
    warm: bool = True
    #: What that template imports before its first fork, beyond ``kernelfork.PRELOAD``: the
    #: modules the notebooks of the same call import (:func:`.warm.imports_of`), so one
    #: template serves them all.
    preload: tuple[str, ...] = ()
    #: The seed of this submission's hidden inputs (:func:`course.observe.hidden_seed`),
    #: told to its kernel before the first test cell and to every judge. The grader draws
    #: one per submission (:func:`.grade.jobs_for`), so inputs a student read on one
    #: feedback page are not the next submission's.
    seed: int = field(default_factory=lambda: secrets.randbelow(2**62))


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
    #: The grading worker's peak resident memory after this submission, in MiB.
    worker_peak_mib: float = 0.0
    #: Seconds spent in each phase of grading it (see :data:`PHASES`).
    phases: dict[str, float] = field(default_factory=dict)


#: The phases of grading one submission, in the order they happen; ``Outcome.phases`` holds
#: the seconds of each, and ``bench/grade_throughput.py`` prints them.
PHASES = {
    "parse": "read the submission and restore the source's tests",
    "sandbox": "make the scratch folder and its mounts",
    "kernel": "start the sandboxed kernel until it answers the first probe",
    "cells": "run the notebook's own cells",
    "tests": "run the test cells' visible checks and record parts in the kernel",
    "judges": "judge the records in the grader",
    "probes": "look for tampering between cells",
    "stop": "stop the kernel, remove its cgroup and mounts",
    "write": "sanitize the executed notebook and write it as JSON",
}


class Phases(dict[str, float]):
    """Seconds per phase of :data:`PHASES`, added up as :meth:`timed` blocks end."""

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        start = time.monotonic()
        try:
            yield
        finally:
            self[phase] = self.get(phase, 0.0) + time.monotonic() - start


class GradeFailure(Exception):
    """A submission that cannot be graded; the message is the one-line reason."""


class KernelStartFailure(GradeFailure):
    """The kernel did not come up; grading it once more may work."""


def is_test(cell: NotebookNode) -> bool:
    m = _meta(cell)
    return bool(m.get("grade")) and not m.get("solution") and cell.cell_type == "code"


def expected_scores(nb: nbformat.NotebookNode, flagged: bool) -> dict[str, float | None]:
    """Every graded cell's automatic score, computed from the executed notebook alone; a
    submission flagged for review scores 0 on its test cells."""
    from nbgrader.utils import determine_grade, is_grade

    out: dict[str, float | None] = {}
    for cell in nb.cells:
        if is_grade(cell):
            score, _ = determine_grade(cell)
            out[cell.metadata["nbgrader"]["grade_id"]] = 0.0 if flagged and is_test(cell) \
                else score
    return out


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
        if not isinstance(cell.metadata.get("nbgrader", {}), dict):
            cell.metadata.pop("nbgrader")  # not nbgrader's: the cell is ungraded
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


def _error_output(ename: str, message: str) -> NotebookNode:
    """An error output the grader writes itself (nbgrader scores a cell holding one 0),
    from a verdict's grader-made text."""
    name = boundary.line(ename, 60) or "Error"
    text = boundary.line(message, boundary.MAX_MESSAGE)
    return nbformat.v4.new_output("error", ename=name, evalue=text,
                                  traceback=[f"{name}: {text}"])


_SECRETS: dict[int, boundary.Secrets] = {}


def secrets_of(source: NotebookNode) -> boundary.Secrets:
    """What a kernel learns of ``source``'s hidden tests while it is graded: the lines of
    their record parts (judges and solutions never enter it). A run of them that a judge
    also holds is the grader's own words. Runs the notebook shows elsewhere stay secret:
    pieces that are each public can still, joined, say what a hidden line does."""
    key = hash(nbformat.writes(source))
    if key not in _SECRETS:
        record, public = [], []
        for n, cell in enumerate(source.cells):
            if is_test(cell):
                parts = test_parts(cell.source, f"cell {n}")
                record += parts.record.splitlines()
                public.append(parts.judge)
        _SECRETS.clear()
        _SECRETS[key] = boundary.Secrets(record, public)
    return _SECRETS[key]


def _visible(source: str) -> str:
    """A test cell's visible checks: its lines outside any region."""
    return "\n".join(ln.text for ln in split(source) if ln.region is None and not ln.marker)


@dataclass
class CellVerdict:
    """How the grader decided one test cell, from the protocol and the judge alone."""

    grade_id: str
    passed: bool
    ename: str = ""  # the failure's exception name and message, as the student reads them
    message: str = ""


class GradingClient(NotebookClient):
    """nbclient with a sandboxed kernel, in which the kernel observes and the grader judges.

    Each graded test cell is sent as its visible checks and the record part of its hidden
    region (never the judge), followed by one statement that emits the record with a nonce
    chosen for that cell and this run. The cell passes only if its ``execute_reply`` says
    ``ok``, it shows no value and writes nothing to stderr, exactly one record with that
    nonce arrived, and the judge, run here on the record, finds nothing wrong. The test
    cell's outputs are then the grader's alone. A tamper probe before the test cells that
    follow any other cell, and after the last cell, flags the submission for review; grades
    do not depend on it."""

    def __init__(self, nb: NotebookNode, job: Job, km: Any, hub: Hub | None = None,
                 secrets: boundary.Secrets = boundary.NO_SECRETS) -> None:
        super().__init__(nb, km=km, timeout=job.cell_timeout, allow_errors=True,
                         interrupt_on_timeout=True, startup_timeout=STARTUP_TIMEOUT,
                         record_timing=False, store_widget_state=False,
                         shutdown_kernel="immediate",
                         extra_arguments=[*KERNEL_ARGS, "--InteractiveShell.xmode=Minimal"])
        self.on_cell_executed = self._keep_reply
        self.job = job
        self.hub = hub
        self.secrets = secrets
        self._visible: list[tuple[list[str], str]] = []
        self._since = 0
        self.timed_out: list[str] = []
        self.review: list[str] = []
        self.verdicts: list[CellVerdict] = []
        #: index of the first cell whose hidden record part entered the kernel
        self.first_record: int | None = None
        self._current = "before the first cell"
        self._reply: dict[str, Any] | None = None
        self._records: list[Any] = []
        self._testing = False
        self._output_chars = 0
        self._capped = False
        self.phases = Phases()

    def _keep_reply(self, cell: NotebookNode, cell_index: int,
                    execute_reply: dict[str, Any] | None) -> None:
        self._reply = execute_reply

    def output(self, outs: list[NotebookNode], msg: dict[str, Any], display_id: str | None,
               cell_index: int) -> NotebookNode | None:
        content = msg.get("content") or {}
        data = content.get("data") or {}
        if msg.get("msg_type") == "display_data" and RECORD_MIME in data:
            # A record is the grader's to read, never a shown output, and the output cap
            # does not drop it; only two are kept per cell (a second one fails the cell).
            if self._testing and len(self._records) < 2:
                self._records.append(_kept_record(data[RECORD_MIME]))
            return None
        self._output_chars += len(json.dumps(content, default=str))
        if self._output_chars > MAX_NOTEBOOK_OUTPUT:
            if not self._capped:
                self._capped = True
                outs.append(nbformat.v4.new_output(
                    "stream", name="stdout",
                    text=f"[outputs past {MAX_NOTEBOOK_OUTPUT:,} characters dropped by the "
                         "grader]\n"))
            return None
        if display_id:
            return None  # an output that could be rewritten later is not kept
        return super().output(outs, msg, display_id, cell_index)

    async def _async_handle_timeout(self, timeout: int, cell: NotebookNode | None = None):
        self.timed_out.append(self._current)
        return await super()._async_handle_timeout(timeout, cell)

    async def _silent(self, code: str, expressions: dict[str, str] | None = None
                      ) -> dict[str, Any] | None:
        assert self.kc is not None
        import zmq

        try:
            msg_id = self.kc.execute(code, silent=True, store_history=False,
                                     user_expressions=expressions or {})
        except zmq.ZMQError:
            raise GradeFailure(f"{_SILENCED}, in {self._current}") from None
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
            with self.phases.timed("kernel"):
                if self.km is not None:
                    self._cap_messages()
                setup = self.async_setup_kernel()
                await setup.__aenter__()
                baseline = await self._probe()
        except Exception as exc:  # noqa: BLE001 - any failure to start is retried once
            await self._stop()
            raise KernelStartFailure(boundary.line(
                (str(exc).splitlines() or [type(exc).__name__])[0])) from None
        if baseline is None:
            await setup.__aexit__(None, None, None)
            await self._stop()
            raise KernelStartFailure("the kernel did not answer the grader before the "
                                     "first cell")
        try:
            await self._cells(baseline)
        finally:
            with self.phases.timed("stop"):
                await setup.__aexit__(None, None, None)
                await self._stop()

    def _cap_messages(self) -> None:
        """Every socket to the kernel drops a message over :data:`MAX_KERNEL_MESSAGE`
        (:data:`MAX_IOPUB_MESSAGE` on IOPub; ZeroMQ's ``MAXMSGSIZE``) before it is read into
        this process."""
        import zmq
        import zmq.asyncio

        context = self._context = zmq.asyncio.Context()
        # A connection dropped for an oversized message does not come back, and a send to
        # no peer would block this process for good: it gives up after SEND_TIMEOUT.
        context.setsockopt(zmq.SNDTIMEO, int(SEND_TIMEOUT * 1000))
        make = self.km.client

        def client(**kw: Any) -> Any:
            kc = make(context=context, **kw)
            connect = kc._create_connected_socket

            def capped(channel: str, identity: bytes | None = None) -> Any:
                size = MAX_IOPUB_MESSAGE if channel == "iopub" else MAX_KERNEL_MESSAGE
                context.setsockopt(zmq.MAXMSGSIZE, size)  # for the socket made next
                return connect(channel, identity=identity)

            kc._create_connected_socket = capped
            return kc

        self.km.client = client

    async def _stop(self) -> None:
        """Kill the kernel now: its whole sandbox (pid namespace) goes with it. nbclient
        leaves a kernel it did not create running, and a worker grades many submissions."""
        if self.km is not None:
            try:
                await self._async_cleanup_kernel()
            except Exception:  # noqa: BLE001 - already dead is fine
                pass
        context = getattr(self, "_context", None)
        if context is not None:
            context.destroy(linger=0)
            self._context = None

    async def _cells(self, baseline: dict[str, Any]) -> None:
        # The probe looks before the first test cell after any other cell (where a
        # submission's own code has just run) and once more after the last cell; what a
        # test cell's call to the student's code leaves behind, the next look sees.
        # The world fakes of graded test cells live in this process (the hub); those of the
        # notebook's other cells stay in the kernel, as they are in the student's own runs.
        looked, serving, seeded = True, False, False
        for index, cell in enumerate(self.nb.cells):
            self._current = _where(cell, index)
            if not is_test(cell):
                if serving:
                    await self._serve(None)
                    serving = False
                with self.phases.timed("cells"):
                    await self._execute(cell, index)
                looked = False
                continue
            if not looked:
                with self.phases.timed("probes"):
                    await self._look(baseline)
                looked = True
            if not serving and self.hub is not None:
                await self._serve(self.hub.socket)
                serving = True
            if not seeded:  # the kernel learns the seed only once the tests begin
                await self._silent(f"__import__('course.observe', fromlist=['use_seed'])"
                                   f".use_seed({self.job.seed!r})")
                seeded = True
            await self._test_cell(cell, index)
        self._current = "after the last cell"
        with self.phases.timed("probes"):
            await self._look(baseline)

    async def _serve(self, socket: str | None) -> None:
        """Switch the kernel's served world fakes to the hub at ``socket`` (or off)."""
        await self._silent(f"__import__('course.hub', fromlist=['activate'])"
                           f".activate({socket!r})")

    async def _look(self, baseline: dict[str, Any]) -> None:
        """Probe and canary: flag for review whatever changed since the baseline."""
        found = probe.changes(baseline, await self._probe())
        if not await self._canary():
            found.append("a failing assertion did not fail (errors are swallowed)")
        for what in found:
            if what not in self.review:
                self.review.append(what)

    async def _execute(self, cell: NotebookNode, index: int) -> NotebookNode:
        import zmq

        try:
            return await self.async_execute_cell(cell, index)
        except zmq.ZMQError:
            raise GradeFailure(f"{_SILENCED}, in {self._current}") from None
        except DeadKernelError:
            code = self._exit_code()
            raise GradeFailure(f"kernel died in {self._current} (exit code {code})"
                               f"{self._out_of_memory()}") from None

    async def _test_cell(self, cell: NotebookNode, index: int) -> None:
        gid = _meta(cell).get("grade_id", f"cell {index + 1}")
        parts = test_parts(cell.source, self._current)
        self._visible = boundary.visible_messages(_visible(cell.source))
        nonce = secrets.token_hex(12)
        sent = nbformat.from_dict(cell)
        rec = "rec" if parts.record else "{}"
        sent.source = (f"{parts.kernel}\n__import__('course.observe', fromlist=['emit'])"
                       f".emit({rec}, {nonce!r})\n")
        if parts.record and self.first_record is None:
            self.first_record = index
        self._reply, self._records, self._testing = None, [], True
        self._since = self.hub.mark() if self.hub is not None else 0
        try:
            with self.phases.timed("tests"):
                ran = await self._execute(sent, index)
        finally:
            self._testing = False
        with self.phases.timed("judges"):
            verdict = self._decide(gid, parts, ran, nonce)
        self.verdicts.append(verdict)
        cell.outputs = [] if verdict.passed else [_error_output(verdict.ename, verdict.message)]
        cell.execution_count = ran.get("execution_count")
        self.nb.cells[index] = cell

    def _decide(self, gid: str, parts: TestParts, ran: NotebookNode, nonce: str
                ) -> CellVerdict:
        def fail(ename: str, why: str) -> CellVerdict:
            return CellVerdict(gid, False, ename, why)

        outputs = ran.get("outputs", [])
        for out in outputs:
            if out.get("output_type") == "error":
                # The kernel has seen this cell's record part (and every earlier one): what
                # it says of an error may carry them, so only grader-written words go on.
                if parts.has_hidden:
                    return fail(*boundary.error_verdict(out.get("ename"), out.get("evalue"),
                                                        self._visible))
                return fail(boundary.line(out.get("ename", "Error"), 60),
                            boundary.line(out.get("evalue", ""), boundary.MAX_MESSAGE))
        status = (self._reply or {}).get("content", {}).get("status")
        if status != "ok":
            return fail("GradingError", f"the cell ended with status {status!r}, not 'ok'")
        if any(o.get("output_type") == "stream" and o.get("name") == "stderr" for o in outputs):
            return fail("GradingError", "the test wrote to stderr; a graded cell that writes "
                        "to stderr scores 0")
        if any(o.get("output_type") == "execute_result" for o in outputs):
            return fail("GradingError", "the test cell showed a value; a graded test cell "
                        "shows nothing when it passes")
        mine = [r for r in self._records if isinstance(r, dict) and r.get("nonce") == nonce]
        if not mine:
            return fail("GradingError", "the cell stopped before its last statement, with no "
                        "error (was an exception such as BdbQuit or KeyboardInterrupt "
                        "swallowed?)")
        if len(mine) > 1 or len(self._records) > 1:
            return fail("GradingError", "the cell sent more than one record; only the "
                        "grader's own last statement sends one")
        if not parts.judge:
            return CellVerdict(gid, True)
        if "refused" in mine[0]:
            return fail("GradingError", mine[0]["refused"])
        record = mine[0].get("record")
        from course.hub import HubError

        try:
            if self.hub is not None:  # the grader's own logs in place of the references
                record = self.hub.resolve(record, self._since)
        except HubError as exc:
            return fail("GradingError", boundary.line(exc, boundary.MAX_MESSAGE))
        try:
            judge.run(parts.judge, record, gid, seed=self.job.seed)
        except judge.JudgeFailed as exc:
            return fail("AssertionError", boundary.judge_message(exc, self.secrets))
        return CellVerdict(gid, True)

    def _out_of_memory(self) -> str:
        """Why the kernel died, when the sandbox's memory cap is the reason."""
        group = getattr(self.km, "group", None)
        sandbox = getattr(self.km, "sandbox", None)
        if group is None or sandbox is None or not group.oom_kills():
            return ""
        return (f": out of memory, the sandbox's cap of "
                f"{sandbox.memory_total // 1024**2:,} MiB for all its processes and files")

    def _exit_code(self) -> str:
        proc = getattr(getattr(self.km, "provisioner", None), "process", None)
        if proc is None:
            return "unknown"
        try:
            code = proc.wait(timeout=5)
        except Exception:
            return "unknown"
        return str(code)


def _kept_record(payload: Any) -> Any:
    """A record output as the grader keeps it: ``{"nonce", "record"}`` when it is within
    :mod:`.boundary`'s caps, else ``{"nonce", "refused": reason}``; a payload of another
    shape is kept as it came (it matches no nonce)."""
    if not isinstance(payload, dict):
        return None
    nonce = payload.get("nonce")
    try:
        if len(json.dumps(payload.get("record"))) > judge.MAX_RECORD_CHARS:
            raise boundary.Refused(f"the cell's record is over {judge.MAX_RECORD_CHARS:,} "
                                   "characters")
        boundary.check_record(payload.get("record"))
    except boundary.Refused as exc:
        return {"nonce": nonce, "refused": str(exc)}
    except (TypeError, ValueError, RecursionError):
        return {"nonce": nonce, "refused": "the cell's record is not JSON"}
    return {"nonce": nonce, "record": payload.get("record")}


async def _run(job: Job, nb: NotebookNode, phases: Phases, warm: bool = False
               ) -> GradingClient:
    from .fakehub import Hub
    from .sandbox import Sandbox, make_kernel_manager, new_scratch

    kernel_name = nb.metadata.get("kernelspec", {}).get("name", "python3")
    template = None
    with phases.timed("sandbox"):
        if warm:
            from . import warm as warmed

            try:
                template = warmed.template_for(job.readonly, job.preload)
                scratch = template.prepare(job.files)
            except Exception as exc:  # noqa: BLE001 - any failure here: a cold kernel
                raise KernelStartFailure(f"no warm kernel: {exc}") from None
        else:
            scratch = new_scratch(job.files, job.sandboxed)
    try:
        km = (template.kernel_manager(kernel_name) if template is not None else
              make_kernel_manager(scratch, Sandbox(job.readonly) if job.sandboxed else None,
                                  kernel_name))
        fakes = Hub(scratch)
        source = nbformat.reads(job.source, as_version=4)
        client = GradingClient(nb, job, km, fakes, secrets_of(source))
        client.phases = phases
        started = time.monotonic()
        over = (f"timed out after {job.total_timeout:.0f} s, the submission's time budget, "
                "in {}")
        try:
            with fakes:
                await asyncio.wait_for(client.grade(), timeout=job.total_timeout)
        except TimeoutError:
            raise GradeFailure(over.format(client._current)) from None
        except GradeFailure:
            # Cancelling a running cell makes nbclient report a dead kernel; past the
            # budget, the budget is the reason.
            if time.monotonic() - started >= job.total_timeout:
                raise GradeFailure(over.format(client._current)) from None
            raise
        finally:
            atexit.unregister(client._cleanup_kernel)
        return client
    finally:
        if template is not None:
            with phases.timed("stop"):
                template.reset()
        else:
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


def _submission(job: Job) -> NotebookNode:
    """The submitted notebook with the source's tests restored; raises
    :class:`GradeFailure` with the reason when there is none to grade."""
    if why := refusal(job.files, f"{job.notebook}.ipynb"):
        raise GradeFailure(why)  # too large, or the notebook is a link: said as such
    if job.sandboxed:
        _check_sandbox_here(job.readonly)
    name = f"{job.notebook}.ipynb"
    if name not in job.files:
        raise GradeFailure(f"no {name} in the submission")
    try:
        text = job.files[name].decode("utf-8")
    except UnicodeDecodeError:
        raise GradeFailure("not a notebook: the file is not UTF-8 text") from None
    return restore(parse_submission(text, name), nbformat.reads(job.source, as_version=4))


def grade_job(job: Job) -> Outcome:
    """Grade one submission in a fresh kernel; never raises."""
    start = time.monotonic()
    out = Outcome(job.student, job.assignment, job.notebook, ok=False)
    phases = Phases()
    try:
        with phases.timed("parse"):
            nb = _submission(job)
        for attempt in (1, 2):
            out.attempts = attempt
            try:
                client = asyncio.run(_run(job, nbformat.from_dict(nb), phases,
                                          warm=job.warm and job.sandboxed and attempt == 1))
                break
            except KernelStartFailure as exc:
                # A kernel that fails to start is retried once.
                if attempt == 2:
                    raise GradeFailure(f"kernel failed to start twice: {exc}") from None
        with phases.timed("write"):
            executed = sanitize(limit_output(client.nb), client.first_record)
            out.executed = nbformat.writes(executed)
        if client.timed_out:
            # A timed-out cell scores 0 (its error output says so); the reason is kept.
            out.error = (f"timed out after {job.cell_timeout:g} s in "
                         f"{', '.join(dict.fromkeys(client.timed_out))}")
        out.review = client.review
        out.ok = True
    except GradeFailure as exc:
        out.error = str(exc)
    except Exception as exc:  # noqa: BLE001 - one submission's crash stays its own
        first = boundary.line((str(exc).splitlines() or [""])[0], 200)
        out.error = f"grader error: {type(exc).__name__}: {first}"
    out.seconds = time.monotonic() - start
    out.phases = dict(phases)
    out.worker_peak_mib = _peak_mib()
    return out


def _peak_mib() -> float:
    """This process's peak resident memory so far, in MiB (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
