"""The instructor command line: ``python -m course <command>``.

    build      authoring/*.py -> source/*.ipynb
    release    student versions into release/, executed solutions into solutions/
    grade      autograde submitted/ in parallel; print the grade table and the class report,
               and write the HTML class report (reports/class_report.html)
    report     the HTML class report from what grading recorded (one self-contained file)
    feedback   feedback HTML for graded submissions
    check      integrity: generated folders in sync, metadata valid, nothing leaks
               (feedback/ pages included)
    verify     grade solution, stub and mutants of assignments through real nbgrader, and
               print the Validate catch rate (share of mutants the student's Validate fails)
    export     a student copy of the course: release/ and the support package only
    record     record a cassette from the live API (needs a key and COURSE_RECORD=1)
    demo       the end-to-end instructor demo in a fresh temporary course
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .authoring import build, export
from .authoring.markers import MarkerError
from .authoring.scripts import AuthoringError
from .execution import grade
from .proofs.blind import BlindError
from .proofs.mutation import MutantError
from .results import report
from .results.model import ClassResults
from .runner import DEFAULT_JOBS, PipelineError, repo_root, select


def _root(args: argparse.Namespace) -> Path:
    return repo_root(Path(args.course_dir) if args.course_dir else None)


def cmd_build(args: argparse.Namespace) -> int:
    changed = build.build_sources(_root(args), check=args.check)
    return _report_sync("source/", changed, args.check)


def _report_sync(what: str, changed: list[str], check: bool) -> int:
    if check:
        for line in changed:
            print(f"out of sync: {line}")
        print(f"{what} {'is in sync' if not changed else 'is OUT OF SYNC'}")
        return 1 if changed else 0
    print(f"{what}: {len(changed)} file(s) updated")
    return 0


def cmd_release(args: argparse.Namespace) -> int:
    root = _root(args)
    status = _report_sync("source/", build.build_sources(root, check=args.check), args.check)
    status |= _report_sync("release/", build.release(root, args.assignments, check=args.check,
                                                        jobs=args.jobs), args.check)
    if not args.no_solutions:
        status |= _report_sync("solutions/", build.build_solutions(
            root, args.assignments, check=args.check, jobs=args.jobs), args.check)
    return status


def cmd_grade(args: argparse.Namespace) -> int:
    root = _root(args)
    if args.clear:
        student, _, assignment = args.clear.partition("/")
        grade.clear_review(root, student, assignment)
        print(f"cleared {args.clear}: its autograded cells now carry their real scores")
        _write_report(root, None)
        return 0
    result = grade.grade_class(root, args.assignments, jobs=args.jobs, timeout=args.timeout,
                               sandbox=not args.no_sandbox, scheduler=args.scheduler,
                               budget_factor=args.budget_factor, warm=not args.cold_kernels)
    print(report.grade_table(result))
    print(report.class_report(result))
    for m in result.mismatches:
        print(f"gradebook differs from the autograded notebook: {m}")
    where = f"on {args.scheduler}" if args.scheduler else f"with {args.jobs} worker(s)"
    print(f"autograded {result.n_graded}/{len(result.runs)} submissions in {result.seconds:.1f}s "
          f"{where}")
    _write_report(root, None)
    return 0 if result.ok else 1


def _write_report(root: Path, out: Path | None, which: list[str] | None = None) -> Path:
    """Write the HTML class report and print where it is, as a URL a browser opens."""
    from .results import html_report

    print("[report] writing the HTML class report", file=sys.stderr, flush=True)
    results = html_report.ClassResults.from_course(root, which)
    for why in results.unreadable:
        print(f"could not read: {why}", file=sys.stderr)
    target = out if out is not None else root / html_report.REPORT_PATH
    page = html_report.render(results, title=f"Class report: {root.name}",
                              links=html_report.Links(root, target))
    path = html_report.write(page, target)
    print(f"class report: {path.as_uri()}")
    return path


def cmd_report(args: argparse.Namespace) -> int:
    root = _root(args)
    if args.assignments:
        select(root, args.assignments)  # unknown names are one clear error
    if not (root / "gradebook.db").is_file():
        raise PipelineError(f"nothing graded in {root}: run `course grade` first")
    _write_report(root, Path(args.out) if args.out else None, args.assignments or None)
    return 0


def cmd_feedback(args: argparse.Namespace) -> int:
    root = _root(args)
    names = select(root, args.assignments)
    errors = grade.write_feedback(root, names, progress=sys.stderr)
    for e in errors:
        print(e, file=sys.stderr)
    print(f"feedback written under {root / 'feedback'}")
    if (root / "gradebook.db").is_file():  # the report's names now link to the new pages
        _write_report(root, None)
    return 1 if errors else 0


def cmd_check(args: argparse.Namespace) -> int:
    from .authoring.integrity import check_tree

    root = _root(args)
    status = _report_sync("source/", build.build_sources(root, check=True), True)
    from .results.feedback import scan_feedback

    problems = [*check_tree(root), *scan_feedback(root)]
    for p in problems:
        print(f"integrity: {p}")
    print(f"integrity: {len(problems)} problem(s)")
    status |= 1 if problems else 0
    if not args.fast:
        status |= _report_sync("release/", build.release(root, check=True, jobs=args.jobs), True)
        skipped: list[str] = []
        changed = build.build_solutions(root, check=True, jobs=args.jobs, skipped=skipped)
        for why in skipped:  # a notebook this environment cannot run: said, not a traceback
            print(f"skipped: {why}")
        status |= _report_sync("solutions/" if not skipped else
                               f"solutions/ ({len(skipped)} notebook(s) skipped)", changed, True)
    return status


def cmd_verify(args: argparse.Namespace) -> int:
    from .proofs.verify import grade_samples

    root = _root(args)
    start = time.monotonic()
    verdicts, _ = grade_samples(root, args.assignments, mutants=args.mutants, jobs=args.jobs)
    rows = [r for v in verdicts for r in v.scores]
    print(report.grade_table(ClassResults.from_runs(rows, [v.run for v in verdicts])))
    for v in verdicts:
        mark = "ok  " if v.ok else "FAIL"
        what = v.sample.mutant.bug if v.sample.mutant else v.sample.kind
        print(f"{mark} {v.sample.assignment} {v.sample.student}: {what}")
        for p in v.problems:
            print(f"       - {p}")
    bad = sum(not v.ok for v in verdicts)
    print(f"{len(verdicts) - bad}/{len(verdicts)} samples scored as they must "
          f"({time.monotonic() - start:.1f}s)")
    if args.seeds:
        bad += _print_seed_sweep(root, args)
    if args.validate:
        bad += _print_catch_rates(root, args.assignments, args.jobs, args.validate_engine)
        if args.blind:
            _print_blind_rates(root, args.assignments, args.jobs)
    return 1 if bad else 0


def _print_seed_sweep(root: Path, args: argparse.Namespace) -> int:
    """Run every sample under ``args.seeds`` more hidden seeds (quick engine); print each
    run that scored otherwise, and return how many did."""
    import secrets

    from .proofs.verify import seed_sweep

    start, first = time.monotonic(), secrets.randbelow(2**31)
    failed = seed_sweep(root, args.assignments, args.mutants, args.seeds, first, args.jobs)
    for sample, seed, problems in failed:
        print(f"FAIL {sample.assignment} {sample.student} under hidden seed {seed}:")
        for p in problems:
            print(f"       - {p}")
    print(f"every sample under hidden seeds {first}..{first + args.seeds - 1}: "
          f"{len(failed)} run(s) scored otherwise ({time.monotonic() - start:.1f}s)")
    return len(failed)


def _print_blind_rates(root: Path, which: list[str], jobs: int) -> None:
    """Print what Validate and grading make of the blind samples (``tests/blind/``): a
    measure of the visible tests on bugs nobody tuned them to, not (yet) a gate."""
    from .proofs.blind import TARGET, measure

    for rate in measure(root, which, jobs):
        problems = rate.problems()
        print(f"{'ok  ' if not problems else 'SHORT'} {rate.line()} (target {TARGET:.0%})")
        for p in problems:
            print(f"       - {p}")


def _print_catch_rates(root: Path, which: list[str], jobs: int, engine: str) -> int:
    """Print the Validate catch rate of each assignment; the number that fall short."""
    from .proofs.validate import catch_rates

    short = 0
    for rate in catch_rates(root, which, jobs, engine=engine):
        problems = rate.problems()
        print(f"{'ok  ' if not problems else 'FAIL'} {rate.line()}")
        for p in problems:
            print(f"       - {p}")
        short += bool(problems)
    return short


def cmd_export(args: argparse.Namespace) -> int:
    root = _root(args)
    files = export.export_student(root, Path(args.target).resolve(), exchange=args.exchange)
    print(f"exported {len(files)} files for students into {args.target} "
          "(release/ and the support package; no source, solutions or tests)")
    exchange = args.exchange if args.exchange is not None else export.configured_exchange(root)
    print(f"its nbgrader exchange: {exchange}" if exchange else
          "students open the notebooks in release/ (to hand out and collect through "
          "nbgrader's exchange, pass --exchange DIR or set c.Exchange.root)")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(_root(args), keep=Path(args.keep) if args.keep else None, jobs=args.jobs,
                    which=args.assignments or None)


def cmd_record(args: argparse.Namespace) -> int:
    from .record import RecordingDisabled, record_scenario

    try:
        target, count = record_scenario(_root(args), args.scenario, Path(args.script),
                                        description=args.description)
    except RecordingDisabled as exc:
        raise PipelineError(str(exc)) from None
    print(f"recorded {count} interaction(s) into {target}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m course", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--course-dir", help="the course folder (default: found from here upwards)")
    sub = p.add_subparsers(dest="command", required=True)

    def add(name: str, fn: Callable[[argparse.Namespace], int], help_: str,
            assignments: bool = True, jobs: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_)
        sp.set_defaults(fn=fn)
        if jobs:
            sp.add_argument("-j", "--jobs", type=int, default=DEFAULT_JOBS,
                            help="parallel grading workers")
        if assignments:
            sp.add_argument("assignments", nargs="*", help="assignment ids (default: all)")
        return sp

    add("build", cmd_build, "authoring/*.py -> source/*.ipynb", False, jobs=False).add_argument(
        "--check", action="store_true", help="only report what is out of date")
    rel = add("release", cmd_release, "generate release/ and solutions/")
    rel.add_argument("--check", action="store_true", help="only report what is out of date")
    rel.add_argument("--no-solutions", action="store_true", help="skip executing solutions/")
    g = add("grade", cmd_grade, "autograde everything in submitted/")
    g.add_argument("--timeout", type=float, default=600,
                   help="the most seconds any one submission may take")
    g.add_argument("--budget-factor", type=float, default=None,
                   help="a submission may take this many times as long as the assignment's "
                        "own solution took in the pre-flight (default 3, at least 60 s)")
    g.add_argument("--no-sandbox", action="store_true",
                   help="run grading kernels without the OS sandbox (a warning is printed)")
    g.add_argument("--cold-kernels", action="store_true",
                   help="start every sandboxed kernel cold instead of forking it from a warm "
                        "template (slower; the same grades)")
    g.add_argument("--scheduler", help="grade on a Dask cluster, e.g. tcp://HOST:8786")
    g.add_argument("--clear", metavar="STUDENT/ASSIGNMENT",
                   help="clear a submission flagged for review: give it its real scores")
    add("report", cmd_report, "the HTML class report from the gradebook", jobs=False
        ).add_argument("--out", help="the HTML file to write (default: "
                       "reports/class_report.html in the course folder)")
    add("feedback", cmd_feedback, "generate feedback HTML")
    add("check", cmd_check, "integrity checks", False).add_argument(
        "--fast", action="store_true", help="skip regenerating release/ and solutions/")
    v = add("verify", cmd_verify, "grade solution, stub and mutants of assignments")
    v.add_argument("--mutants", choices=["all", "first", "none"], default="all")
    v.add_argument("--seeds", type=int, default=0, metavar="N",
                   help="also run every sample under N more hidden seeds, drawn at random, on "
                        "the quick engine: a hidden input's set must hold for every value")
    v.add_argument("--no-validate", dest="validate", action="store_false",
                   help="skip the Validate catch rate (release notebooks with each mutant)")
    v.add_argument("--no-blind", dest="blind", action="store_false",
                   help="skip the blind samples' rates (tests/blind/): for whoever is writing "
                        "the visible checks, who must not tune them to those bugs")
    v.add_argument("--validate-engine", choices=["quick", "nbgrader"], default="quick",
                   help="quick: forked runs scored by nbgrader's rule (default); nbgrader: "
                        "the real `nbgrader validate` per notebook, several times slower")
    r = add("record", cmd_record, "record a cassette from the live API (needs a key and "
            "COURSE_RECORD=1)", False, jobs=False)
    r.add_argument("scenario", help="cassette name, e.g. lab01_tool_loop__weather_two_step")
    r.add_argument("--script", required=True, help="Python file that drives `client`")
    r.add_argument("--description", default="", help="what the scenario shows")
    e = add("export", cmd_export, "a student copy: release/ and the support package only",
            False, jobs=False)
    e.add_argument("target", help="a new folder")
    e.add_argument("--exchange", metavar="DIR",
                   help="nbgrader exchange folder for the copy's config (default: "
                        "c.Exchange.root of this course's nbgrader_config.py, if set)")
    add("demo", cmd_demo, "end-to-end instructor demo").add_argument(
        "--keep", help="build the demo course inside this folder and keep it")
    return p


def exit_now(code: int | None) -> None:
    """End the command with ``code`` once its work is done, without the interpreter's
    teardown. That teardown frees every object of every module one by one (about 0.7 s
    after grading a class, with nbgrader, SQLAlchemy and the class's outcomes loaded); the
    gradebook, the files and the report are written and closed before this is called.
    What Python would still do at exit is done here: the ``atexit`` handlers run (the
    grading pool's temporary folder among them), the pool's fork server is ended
    (:func:`.execution.forkserver.stop`) and both output streams are flushed. A thread
    still running (none is, after any command here) gets Python's own exit, which waits
    for it."""
    import atexit
    import os
    import threading

    if any(t is not threading.main_thread() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    server = sys.modules.get("course.grading.execution.forkserver")
    if server is not None:
        server.stop()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said on it
            pass
    os._exit(0 if code is None else code)  # as sys.exit(None) would


def _cassette_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a :class:`course.cassette.CassetteError`. Only a command that
    imported :mod:`course.cassette` can raise one, and importing it imports the SDK (about a
    second): ``grade`` never does."""
    cassette = sys.modules.get("course.cassette")
    return cassette is not None and isinstance(exc, cassette.CassetteError)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except (PipelineError, AuthoringError, MutantError, BlindError, MarkerError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        if not _cassette_error(exc):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
