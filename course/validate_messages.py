"""Validate says what to do next.

nbgrader's Validator prints, for every failing cell, "The following cell failed:", the
cell's whole test source and then its error, under a header that ``textwrap.fill`` breaks
mid-sentence; on an untouched notebook that is one test listing per check, hundreds of
lines, and ``nbgrader validate`` exits 0 whatever it found. :func:`install` keeps nbgrader's
Validator and changes only what it reports:

* one entry per failing check: its name (the cell's ``grade_id``), then its message; never
  its test source;
* a check that fails because a function still raises ``NotImplementedError`` is folded into
  one line per unwritten function: "`agent` is not written yet";
* long lines are wrapped at ``Validator.width`` (90 columns), never cut with ``...``;
* the header is one sentence.

JupyterLab's Validate button reads the same entries through ``Validator.validate`` (the
dialog shows an entry's ``source`` as text and its ``error`` as nbgrader's escaped HTML).
Both the course's and the student copy's ``nbgrader_config.py`` call :func:`install`;
``python -m course.validate_messages NOTEBOOK`` (the student copy's ``./dev validate``) runs
nbgrader's ``validate`` and exits 1 when validation fails.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

from course import validate_server

_NOT_IMPLEMENTED = re.compile(r"\bNotImplementedError\b")
_HIDDEN = "### BEGIN HIDDEN TESTS"
#: The key of a ``Validator.validate`` result that holds the printed report.
REPORT = validate_server.REPORT
#: Set by :func:`_validate_and_print` when a notebook did not validate (for :func:`main`).
_failures: list[str] = []


def unwritten_functions(nb) -> list[str]:  # noqa: ANN001 - a notebook node
    """Functions of the notebook's answer cells whose body still raises
    ``NotImplementedError`` (the release's stub), in notebook order."""
    names: list[str] = []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or not isinstance(meta, dict) \
                or not meta.get("solution"):
            continue
        try:
            tree = ast.parse(cell.source if isinstance(cell.source, str) else "")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                    isinstance(n, ast.Raise) and "NotImplementedError" in ast.unparse(n)
                    for n in node.body):
                names.append(node.name)
    return list(dict.fromkeys(names))


def called_in(source: str, names: list[str]) -> list[str]:
    """Which of ``names`` a test cell's visible part mentions (all of them if none)."""
    words = set(re.findall(r"[A-Za-z_]\w*", source.split(_HIDDEN, 1)[0]))
    return [n for n in names if n in words] or list(names)


def entries(nb, failed, error_of) -> list[dict[str, str]]:  # noqa: ANN001
    """One entry per failing check, ``{"source": heading, "raw_error": message}``: first one
    per function not written yet, then each check that failed for another reason."""
    from nbconvert.filters import strip_ansi

    unwritten = unwritten_functions(nb)
    missing: dict[str, list[str]] = {}
    checks: list[dict[str, str]] = []
    for cell in failed:
        meta = cell.metadata.get("nbgrader", {})
        name = str(meta.get("grade_id") or "cell")
        error = strip_ansi(error_of(cell)).strip()
        if unwritten and _NOT_IMPLEMENTED.search(error):
            for fn in called_in(cell.source, unwritten):
                missing.setdefault(fn, []).append(name)
            continue
        kind = "check" if cell.get("cell_type") == "code" else "written answer"
        checks.append({"source": f"{kind} {name}", "raw_error": error or "failed"})
    written = [{"source": f"`{fn}` is not written yet",
                "raw_error": (f"it still raises NotImplementedError; write it, then Validate "
                              f"again (check{'s' if len(ids) > 1 else ''} "
                              f"{', '.join(ids)} call{'' if len(ids) > 1 else 's'} it)")}
               for fn, ids in missing.items()]
    return written + checks


def _wrapped(self, val: str) -> str:  # noqa: ANN001 - nbgrader's Validator
    from nbconvert.filters import strip_ansi

    lines = []
    for line in val.split("\n"):
        text = self.indent + strip_ansi(line)
        if len(text) <= self.width:
            lines.append(text)
            continue
        lines += [part.rstrip() for part in textwrap.wrap(
            text, width=self.width, subsequent_indent=self.indent + "  ",
            break_long_words=True, break_on_hyphens=False, drop_whitespace=False,
            replace_whitespace=False)]
    return "\n".join(lines)


def header(count: int) -> str:
    """The one sentence above the entries."""
    things = "1 check" if count == 1 else f"{count} checks"
    return f"Validation failed on {things}: submitted as it is, it will not get full credit."


def _install_validate(validator_cls) -> None:  # noqa: ANN001
    from nbconvert.filters import ansi2html

    original = validator_cls.validate
    if getattr(original, "_course", False):
        return

    def failed_cells(self, nb):  # noqa: ANN001
        failed = validator_cls._course_failed_cells(self, nb)
        self._course_nb, self._course_failed = nb, failed
        return failed

    def validate(self, filename):  # noqa: ANN001
        self._course_nb, self._course_failed = None, []
        results = original(self, filename)
        if "failed" in results and self._course_nb is not None:
            found = entries(self._course_nb, self._course_failed, self._extract_error)
            results["failed"] = [
                {"source": e["source"],
                 "error": ansi2html("\n".join(textwrap.fill(line, 88) or line for line in
                                              e["raw_error"].split("\n"))),
                 "raw_error": e["raw_error"]} for e in found]
        # What the command prints, made here so that a Jupyter server's answer carries it
        # (the button ignores keys it does not know).
        results[REPORT] = _report(self, results)
        return results

    validate._course = True
    validator_cls._course_failed_cells = validator_cls._get_failed_cells
    validator_cls._get_failed_cells = failed_cells
    validator_cls.validate = validate


def _print_num_failed(self, num_failed: int) -> None:  # noqa: ANN001
    if num_failed == 0:
        self.stream.write("Success! Your notebook passes all the tests.\n")
    else:
        self.stream.write(header(num_failed) + "\n")


def _print_error(self, source: str, error: str) -> None:  # noqa: ANN001
    self.stream.write("\n" + "=" * self.width + "\n")
    self.stream.write(source + "\n")
    self.stream.write(self._indent(error) + "\n")


def _validate_and_print(self, filename: str) -> None:  # noqa: ANN001
    """nbgrader's ``validate_and_print``, which also notes a notebook that did not validate."""
    results = self.validate(filename)
    if not_valid(results):
        _failures.append(filename)
    self.stream.write(results.get(REPORT) or _report(self, results))


def not_valid(results: dict) -> bool:
    """Whether a ``Validator.validate`` result is a notebook that did not validate."""
    return any(results.get(k) for k in ("type_changed", "changed", "failed"))


def _report(self, results: dict) -> str:  # noqa: ANN001 - nbgrader's Validator
    """What nbgrader's ``validate_and_print`` writes for ``results``, with this module's
    header and entries."""
    import io

    stream, self.stream = self.stream, io.StringIO()
    try:
        _print_results(self, results)
        return self.stream.getvalue()
    finally:
        self.stream = stream


def _print_results(self, results: dict) -> None:  # noqa: ANN001
    if results.get("type_changed"):
        self._print_num_type_changed(len(results["type_changed"]))
        for cell in results["type_changed"]:
            self._print_type_changed(cell["old_type"], cell["new_type"], cell["source"])
    elif not self.ignore_checksums and results.get("changed"):
        self._print_num_changed(len(results["changed"]))
        for cell in results["changed"]:
            self._print_changed(cell["source"])
    elif self.invert:
        self._print_num_passed(len(results.get("passed", [])))
        for cell in results.get("passed", []):
            self._print_pass(cell["source"])
    else:
        # the header counts failing checks; the entries fold a stub's into one per function
        self._print_num_failed(len(getattr(self, "_course_failed", None)
                                   or results.get("failed", [])))
        for cell in results.get("failed", []):
            self._print_error(cell["source"], cell["raw_error"])


def install() -> None:
    """Have nbgrader's Validator report as the module docstring says."""
    from nbgrader.validator import Validator

    Validator._indent = _wrapped
    _install_validate(Validator)
    Validator._print_num_failed = _print_num_failed
    Validator._print_error = _print_error
    Validator.validate_and_print = _validate_and_print


def main(argv: list[str] | None = None) -> int:
    """``nbgrader validate`` on the notebooks named, exiting 1 if any did not validate.

    The warm kernel template (:mod:`course.kernelfork`) starts on a thread of its own while
    nbgrader is imported, so a copy whose config names ``ReadyKernelManager`` gets its kernel
    forked as soon as it asks; the template ends with this process."""
    import glob
    import threading

    args = sys.argv[1:] if argv is None else list(argv)
    _failures.clear()
    if args and not any(a.startswith("-") for a in args):
        missing = [name for name in args if not glob.glob(name)]
        if missing:
            print(f"no notebook at {', '.join(missing)}", file=sys.stderr)
            return 2
        # the student's own JupyterLab, when it runs here, answers from its warm kernel
        notebooks = [n for name in args for n in sorted(glob.glob(name))]
        left = []
        for name in notebooks:
            results = validate_server.validate(Path(name))
            if results is None:
                left.append(name)
                continue
            sys.stdout.write(results[REPORT])
            if not_valid(results):
                _failures.append(name)
        if not left:
            return 1 if _failures else 0
        args = left
    from course import kernelfork

    threading.Thread(target=kernelfork.prewarm, daemon=True).start()
    from nbgrader.apps.validateapp import ValidateApp

    install()
    app = ValidateApp.instance()
    app.initialize(args)
    missing = [name for name in app.extra_args if not glob.glob(name)]
    if missing:
        print(f"no notebook at {', '.join(missing)}", file=sys.stderr)
        return 2
    app.start()
    return 1 if _failures else 0


if __name__ == "__main__":
    # run as the imported module, the one the notebook folder's nbgrader_config.py installs
    from course.validate_messages import main as _main

    sys.exit(_main())
