"""Benchmark: one Validate of a finished Lab 1, with the warm kernel template the student
copy configures (``course.kernelfork.ReadyKernelManager``) and with a kernel started cold,
side by side in one run.

* **button:** what JupyterLab's Validate button does, in one long-lived process as the Jupyter
  server is: the config loaded from the student copy's folder, then nbgrader's
  ``Validator.validate`` on the notebook. The first warm click starts the template; the
  median is over the clicks after it.
* **command:** the student copy's ``./dev validate NOTEBOOK`` (a fresh process each run),
  as configured (warm) and with ``--Execute.kernel_manager_class`` set back to
  jupyter_client's own;
* **command with JupyterLab running:** the same command while a Jupyter server runs in the
  copy, which it asks (``course/validate_server.py``), against the command with no server.

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


def _through_lab(copy: Path, notebook: Path, runs: int) -> tuple[list[float], list[float],
                                                                    bool]:
    """``./dev validate`` with a Jupyter server running in the copy (it asks the server,
    whose Validate keeps the warm template) against the same command with no server,
    alternated; one request first, which starts the server's template."""
    import socket

    from course import validate_server

    rt = Path(tempfile.mkdtemp(prefix="validate-bench-rt-"))
    none = Path(tempfile.mkdtemp(prefix="validate-bench-none-"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(rt)}
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "server", "--no-browser", "--allow-root",
         "--ip=127.0.0.1", f"--port={port}", "--IdentityProvider.token=bench",
         f"--ServerApp.root_dir={copy}"],
        cwd=copy, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def command(runtime: Path) -> tuple[float, tuple]:
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-c", CLI, str(notebook)], cwd=copy,
                              env={**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)},
                              capture_output=True, text=True)
        return time.monotonic() - start, (proc.returncode, proc.stdout)

    try:
        while not validate_server.servers(rt):
            time.sleep(0.2)
        command(rt)  # the first request starts the server's template
        lab, alone, same = [], [], True
        for _ in range(runs):
            a, ar = command(rt)
            b, br = command(none)
            lab.append(a)
            alone.append(b)
            same = same and ar == br
        return lab, alone, same
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(rt, ignore_errors=True)
        shutil.rmtree(none, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=5)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="validate-bench-"))
    try:
        copy = scratch / "copy"
        notebook = _student_copy(copy)
        cw, cc, csame = _commands(copy, notebook, args.clicks)
        lw, lc, lsame = _through_lab(copy, notebook, args.clicks)
        bw, bc, bsame = _clicks(copy, notebook, args.clicks)
        for what, w, c, same, kinds in (
                ("button (Validator in one process)", bw, bc, bsame, ("warm", "cold")),
                ("./dev validate (a new process)", cw, cc, csame, ("warm", "cold")),
                ("./dev validate with the copy's JupyterLab running", lw, lc, lsame,
                 ("asking it", "alone"))):
            mw, mc = statistics.median(w), statistics.median(c)
            print(f"{what}: {kinds[0]} {mw:.2f} s, {kinds[1]} {mc:.2f} s, median of "
                  f"{len(w)}; ratio {mc / mw:.2f}x; same result both ways: {same}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
