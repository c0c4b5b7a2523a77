"""Benchmark: one Validate of a finished Lab 1, with the warm kernel template the student
copy configures (``course.kernelfork.ReadyKernelManager``) and with a kernel started cold,
side by side in one run.

* **button:** what JupyterLab's Validate button does, in one long-lived process as the Jupyter
  server is: the config loaded from the student copy's folder, then nbgrader's
  ``Validator.validate`` on the notebook. The first warm click starts the template; the
  median is over the clicks after it.
* **command:** the student copy's ``./dev validate NOTEBOOK`` (a fresh process each run),
  as configured (warm) and with ``--Execute.kernel_manager_class`` set back to
  jupyter_client's own.

Warm and cold runs alternate, so a noisy spell hits both; medians and their ratio are
printed, with whether both saw the same result.

    python bench/validate_click.py [--clicks 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
LAB = "lab01_tool_loop"
COLD = "jupyter_client.manager.AsyncKernelManager"
CLI = "import sys; from course.validate_messages import main; sys.exit(main())"


def _student_copy(into: Path) -> Path:
    """A student copy with a finished Lab 1 in it; the notebook's path."""
    from course.grading import runner
    from course.grading.proofs import mutation

    subprocess.run([sys.executable, "-m", "course", "export", str(into)], cwd=ROOT,
                   check=True, capture_output=True)
    release = runner.read_notebook(into / "release" / LAB / f"{LAB}.ipynb")
    source = runner.read_notebook(ROOT / "source" / LAB / f"{LAB}.ipynb")
    done = into / "release" / LAB / "finished.ipynb"
    nbformat.write(mutation.submission(release, source), done)
    return done


def _clicks(copy: Path, notebook: Path, clicks: int) -> tuple[list[float], list[float], bool]:
    """Button clicks in this process, warm and cold alternated (plus one warm click first,
    which starts the template)."""
    from jupyter_core.paths import jupyter_config_path
    from nbgrader.apps import NbGrader
    from nbgrader.validator import Validator

    os.chdir(copy)
    sys.path.insert(0, str(copy))

    def click(cold: bool) -> tuple[float, dict]:
        app = NbGrader()
        app.config_file_paths.append([str(copy), *jupyter_config_path()])
        app.load_config_file()
        config = app.config
        if cold:
            config.Execute.kernel_manager_class = COLD
        start = time.monotonic()
        result = Validator(config=config).validate(str(notebook))
        return time.monotonic() - start, result

    click(False)  # the first click starts the template
    warm, cold, same = [], [], True
    for _ in range(clicks):
        w, wr = click(False)
        c, cr = click(True)
        warm.append(w)
        cold.append(c)
        same = same and wr == cr
    return warm, cold, same


def _commands(copy: Path, notebook: Path, runs: int) -> tuple[list[float], list[float], bool]:
    warm, cold, same = [], [], True
    for _ in range(runs):
        codes = []
        for extra, into in (([], warm), ([f"--Execute.kernel_manager_class={COLD}"], cold)):
            start = time.monotonic()
            proc = subprocess.run([sys.executable, "-c", CLI, str(notebook), *extra],
                                  cwd=copy, capture_output=True, text=True)
            into.append(time.monotonic() - start)
            codes.append((proc.returncode, proc.stdout.splitlines()[-1:]))
        same = same and codes[0] == codes[1]
    return warm, cold, same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=5)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="validate-bench-"))
    try:
        copy = scratch / "copy"
        notebook = _student_copy(copy)
        cw, cc, csame = _commands(copy, notebook, args.clicks)
        bw, bc, bsame = _clicks(copy, notebook, args.clicks)
        for what, w, c, same in (("button (Validator in one process)", bw, bc, bsame),
                                 ("./dev validate (a new process)", cw, cc, csame)):
            mw, mc = statistics.median(w), statistics.median(c)
            print(f"{what}: warm {mw:.2f} s, cold {mc:.2f} s, median of {len(w)}; "
                  f"cold/warm {mc / mw:.2f}x; same result both ways: {same}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
