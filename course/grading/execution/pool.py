"""Run :func:`.engine.grade_job` over many submissions: a local pool of long-lived worker
processes, or a Dask cluster; report progress on stderr while it runs.

Each worker process imports the grader once and then grades submission after submission,
each in a fresh sandboxed kernel. :func:`.engine.grade_job` never raises, so a broken
submission costs only itself; if a worker process itself dies, the submissions the pool had
not finished are graded again, each alone, so only one that kills its own process fails.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from . import boundary, forkserver
from .engine import Job, Outcome, grade_job


class Progress:
    """done/total, rate, ETA and failures on stderr: a tqdm bar on a terminal, one plain line
    per finished submission otherwise."""

    def __init__(self, total: int, what: str = "grading", stream=None) -> None:
        self.stream = stream or sys.stderr
        self.total, self.done, self.failed = total, 0, 0
        self.start = time.monotonic()
        self.bar = None
        if self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=what, unit="sub", file=self.stream,
                            dynamic_ncols=True)

    def update(self, out: Outcome) -> None:
        self.done += 1
        self.failed += not out.ok
        if self.bar is not None:
            self.bar.set_postfix(failed=self.failed, refresh=False)
            self.bar.update(1)
            return
        took = time.monotonic() - self.start
        rate = self.done / took if took > 0 else 0.0
        eta = (self.total - self.done) / rate if rate else 0.0
        state = "ok" if out.ok and not out.review else ("REVIEW" if out.ok else "FAILED")
        note = f": {out.error}" if out.error else ""
        print(f"[{self.done}/{self.total}] {out.student}/{out.assignment} {state} "
              f"{out.seconds:.1f}s{note} | {rate:.2f}/s, ETA {eta:.0f}s, "
              f"{self.failed} failed", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _crashed(job: Job, why: str) -> Outcome:
    return Outcome(job.student, job.assignment, job.notebook, ok=False,
                   error=f"grader worker crashed ({why})")


def _warm_up(readonly: tuple[str, ...], preload: tuple[str, ...]) -> None:
    """A worker's first act: start its warm template (:func:`.warm.template_for`) before any
    job reaches it. It never raises (an initializer that raises breaks the whole pool): a
    template that did not start here is started by the worker's first job, which falls back
    to a cold kernel if it cannot."""
    try:
        from .warm import template_for

        template_for(readonly, preload)
    except Exception:  # noqa: BLE001 - the first job tries again and says why
        pass


def start(workers: int, template: tuple[tuple[str, ...], tuple[str, ...]] | None = None
          ) -> ProcessPoolExecutor:
    """``workers`` grading processes, started now rather than at the first job, for
    :func:`run_local` to use. With ``template`` (the ``readonly`` roots and ``preload`` of
    the jobs to come, as :class:`.engine.Job` holds them), each worker starts its warm
    template while the caller is still reading the submissions: a template's imports take
    about two seconds, which the first job of each worker would otherwise wait for."""
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=forkserver.context(),
                               initializer=_warm_up if template else None,
                               initargs=template or ())

    def spawn() -> None:
        # A pool starts a process per task it has no idle one for. Each start waits for
        # the fork server to finish its imports (about a second after the command began),
        # which the caller need not wait for: it goes on reading the jobs.
        for _ in range(workers):
            try:
                pool.submit(os.getpid)
            except RuntimeError:  # shut down already (the caller stopped before grading)
                return

    threading.Thread(target=spawn, name="start grading workers", daemon=True).start()
    return pool


def run_local(jobs: Sequence[Job], workers: int,
              on_done: Callable[[Outcome], None] = lambda o: None,
              fn: Callable[[Job], Outcome] = grade_job,
              prepare: Callable[[Job], str] | None = None,
              started: ProcessPoolExecutor | None = None) -> list[Outcome]:
    """Grade ``jobs`` on ``workers`` long-lived processes (those of ``started``, from
    :func:`start`, which this shuts down, else new ones); results in the order of ``jobs``.

    A job is handed to a worker only when one is free, in order, so ``prepare(job)``, called
    just before, can still adjust it from what finished earlier (the pre-flight sets each
    submission's budget this way); a non-empty string from ``prepare`` is a reason not to
    run the job at all, and becomes its outcome's error.

    A worker process that dies breaks the whole pool, so every submission not yet finished
    fails with it, not only the one that killed it. Each of those is graded again alone, in
    a process of its own, and fails only if its process dies twice there.
    """
    results: dict[int, Outcome] = {}

    def ready(i: int) -> bool:
        why = prepare(jobs[i]) if prepare else ""
        if why:
            results[i] = Outcome(jobs[i].student, jobs[i].assignment, jobs[i].notebook,
                                 ok=False, error=why)
            on_done(results[i])
        return not why

    if started is None and (workers <= 1 or len(jobs) <= 1):
        for i, job in enumerate(jobs):
            if ready(i):
                results[i] = fn(job)
                on_done(results[i])
        return [results[i] for i in range(len(jobs))]
    ctx = forkserver.context()
    broken: list[int] = []
    waiting = iter(range(len(jobs)))
    if started is None:
        started = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx)
    with started as pool:
        futures: dict = {}

        def fill() -> None:
            while len(futures) < workers:
                i = next(waiting, None)
                if i is None:
                    return
                if ready(i):
                    try:
                        futures[pool.submit(fn, jobs[i])] = i
                    except BrokenProcessPool:
                        broken.append(i)

        fill()
        while futures:
            finished, _ = wait(futures, return_when=FIRST_COMPLETED)
            for fut in finished:
                i = futures.pop(fut)
                try:
                    results[i] = fut.result()
                except BrokenProcessPool:
                    broken.append(i)
                    continue
                except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
                    results[i] = _crashed(jobs[i], type(exc).__name__)
                on_done(results[i])
            fill()
        # a broken pool refuses new work: what was never handed over is graded alone too
        broken += [i for i in waiting if ready(i)]
        if broken:
            _end_broken(pool)

    def alone(i: int) -> Outcome:
        for _ in range(2):  # it may never have started in the pool: two tries of its own
            with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as solo:
                try:
                    return solo.submit(fn, jobs[i]).result()
                except BrokenProcessPool:
                    continue
                except Exception as exc:  # noqa: BLE001
                    return _crashed(jobs[i], type(exc).__name__)
        return _crashed(jobs[i], "twice while grading it alone")

    with ThreadPoolExecutor(max_workers=workers) as threads:
        for i, out in zip(sorted(broken), threads.map(alone, sorted(broken)), strict=True):
            results[i] = out
            on_done(out)
    if broken and any(job.sandboxed for job in jobs):
        # a worker killed mid-grade left its scratch mounts and cgroup: remove them
        from .sandbox import sweep_stale

        sweep_stale()
    return [results[i] for i in range(len(jobs))]


def _end_broken(pool: ProcessPoolExecutor) -> None:
    """Stop what is left of a broken pool's workers. Python 3.11's pool can wait for good
    on a worker that outlived the one that died (idle, reading its empty work queue), so
    the remaining workers are ended here rather than waited for."""
    left = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in left:
        if proc.is_alive():
            proc.terminate()


def run_dask(jobs: Sequence[Job], scheduler: str,
             on_done: Callable[[Outcome], None] = lambda o: None) -> list[Outcome]:
    """Grade ``jobs`` on the Dask cluster at ``scheduler`` (e.g. ``tcp://host:8786``).
    Workers need this package, the same environment paths and bubblewrap; only outcomes
    come back, and the caller merges them into the gradebook."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        from ..runner import PipelineError

        raise PipelineError("--scheduler needs dask.distributed: "
                            "pip install 'owning-the-agent-loop[cluster]'") from None
    client = Client(scheduler)
    try:
        futures = client.map(grade_job, list(jobs), pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        results: dict[int, Outcome] = {}
        for fut in as_completed(futures):
            i = index[fut.key]
            try:
                results[i] = fut.result()
            except Exception as exc:  # noqa: BLE001 - a lost worker, say
                results[i] = _crashed(jobs[i], f"on the cluster: {type(exc).__name__}")
            on_done(results[i])
        return [results[i] for i in range(len(jobs))]
    finally:
        client.close()


def run(jobs: Sequence[Job], workers: int, scheduler: str | None = None,
        progress: bool = True, what: str = "grading",
        on_done: Callable[[Outcome], None] = lambda o: None,
        prepare: Callable[[Job], str] | None = None,
        started: ProcessPoolExecutor | None = None) -> list[Outcome]:
    """The local pool, or the cluster when ``scheduler`` is given; with a progress display.
    ``on_done`` sees each outcome as it arrives; ``prepare`` and ``started`` work on the
    local pool only (:func:`run_local`)."""
    bar = Progress(len(jobs), what) if progress else None

    def done(out: Outcome) -> None:
        boundary.outcome(out)
        if bar:
            bar.update(out)
        on_done(out)

    try:
        if scheduler:
            return run_dask(jobs, scheduler, done)
        return run_local(jobs, workers, done, prepare=prepare, started=started)
    finally:
        if bar:
            bar.close()

