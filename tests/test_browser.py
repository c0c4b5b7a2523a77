"""The student's and the instructor's path through JupyterLab, in a real headless Chromium.

A student copy (``course export``, no exchange folder) is served on loopback. The test runs
Lab 1, presses nbgrader's Validate on the stub (one line per unwritten function), on a copy
with the solution filled in (success) and on a copy with a seeded bug (one entry per failing
check, no test source), each report readable in the dialog without sideways scrolling;
moves a slider in Lecture 4 and sees the plot change, checks that the copy shows the
student's tools and none of the instructor's (no Assignment List without an exchange), then
opens Formgrader as the instructor. Every step leaves a screenshot in the test's folder (and in
``$COURSE_SCREENSHOTS`` when set).

The browser is Debian's ``/usr/bin/chromium``; nothing here downloads one. Without it the
test skips, except under ``CI=true``, where a missing browser is a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import nbformat
import pytest

from course.grading.authoring.export import disabled_plugins, export_student
from course.grading.proofs.mutation import Mutant, load_mutants, submission

from . import ROOT

BIN = Path(sys.executable).parent
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TOKEN = "course-browser-test"
LAB1 = "lab01_tool_loop"
LECTURE4 = "lecture04_context_cache"
#: A seeded bug that fails several of Lab 1's visible checks (the history keeps only text).
BUG = next(m for m in load_mutants(ROOT / "tests" / "mutants" / f"{LAB1}.py")
           if m.name == "text_only_history")
#: The copy is exported without an exchange folder: Validate, and no Assignment List (which
#: could only say the exchange directory does not exist).
STUDENT_PLUGINS = ("@jupyter/nbgrader:validate-assignment",)



def OFF_LOOPBACK(url: str) -> bool:  # noqa: N802 - a URL matcher for context.route
    """Every URL that leaves this machine: the page may reach loopback only."""
    return not url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:"))


pytestmark = [pytest.mark.slow, pytest.mark.browser]


def _require_browser() -> None:
    if CHROMIUM.exists():
        return
    message = (f"{CHROMIUM} is missing: install Debian's chromium (apt-get install -y "
               "chromium; ./dev test does it as root)")
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI is set and {message}")
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """JupyterLab on loopback serving ``root``, started at once; :meth:`ready` waits for it.

    Its own config, runtime and settings folders live in ``tmp``; its log is kept there.
    """

    def __init__(self, root: Path, tmp: Path, name: str, *,
                 config_path: Path | None = None) -> None:
        port = _free_port()
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp / f"{name}-cfg"),
               "JUPYTER_RUNTIME_DIR": str(tmp / f"{name}-rt"),
               "JUPYTERLAB_SETTINGS_DIR": str(tmp / f"{name}-settings"),
               "JUPYTERLAB_WORKSPACES_DIR": str(tmp / f"{name}-ws"), "NO_COLOR": "1",
               # nbgrader runs `alembic` from PATH when it opens the gradebook
               "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
        env.pop("JUPYTER_CONFIG_PATH", None)
        if config_path is not None:
            env["JUPYTER_CONFIG_PATH"] = str(config_path)
        self.log_path = tmp / f"{name}-server.log"
        self.base = f"http://127.0.0.1:{port}"
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [str(BIN / "jupyter"), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
                 f"--port={port}", f"--IdentityProvider.token={TOKEN}",
                 f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True"],
                cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)

    def ready(self, timeout: float = 90) -> str:
        """Wait until the server answers; return its base URL."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/api/status?token={TOKEN}", timeout=5):
                    return self.base
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        f"JupyterLab did not start: {self.log_path.read_text()}") from None
                time.sleep(0.3)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Shots:
    """Numbered screenshots in the test folder, copied to $COURSE_SCREENSHOTS if set."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.extra = Path(os.environ["COURSE_SCREENSHOTS"]) if os.environ.get(
            "COURSE_SCREENSHOTS") else None
        self.taken: list[Path] = []

    def __call__(self, page, name: str) -> Path:
        path = self.folder / f"{len(self.taken) + 1:02d}-{name}.png"
        page.screenshot(path=str(path))
        self.taken.append(path)
        if self.extra is not None:
            self.extra.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, self.extra / path.name)
        return path


def _solved(release: Path, source: Path, target: Path, mutant: Mutant | None = None) -> None:
    """Write the release notebook with every answer cell filled from the source (with
    ``mutant``'s bug in it, if given)."""
    nb = submission(nbformat.read(release, as_version=4), nbformat.read(source, as_version=4),
                    mutant)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def open_notebook(page, base: str, path: str) -> None:
    page.goto(f"{base}/lab/tree/{path}?token={TOKEN}&reset")
    page.locator(".jp-NotebookPanel .jp-Notebook").first.wait_for(timeout=60_000)
    page.wait_for_function(
        "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " const k = w && w.sessionContext && w.sessionContext.session"
        " && w.sessionContext.session.kernel; return k && k.status === 'idle'; }",
        timeout=90_000)


def run_all(page) -> None:
    page.keyboard.press("Escape")
    page.evaluate("window.jupyterapp && window.jupyterapp.commands.execute("
                  "'notebook:run-all-cells')")


def wait_idle(page, timeout: float = 90) -> None:
    """Until no cell shows ``[*]`` (queued or running)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = page.locator(".jp-InputPrompt:has-text('[*]')").count()
        if busy == 0:
            return
        page.wait_for_timeout(300)
    raise AssertionError(f"cells still running after {timeout}s")


#: What a reader of the Validate dialog meets: elements of the report whose text runs past
#: their box (sideways scrolling), and whether the report's box scrolls when it is taller
#: than the dialog (or fits it).
DIALOG_FIT = """() => {
  const m = document.querySelector('#validation-message');
  const body = m.closest('.jp-Dialog-body') || m.parentElement;
  const wide = [m, ...m.querySelectorAll('*')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => `${e.tagName} ${e.scrollWidth}>${e.clientWidth}`);
  const style = getComputedStyle(body);
  const tall = body.scrollHeight > body.clientHeight + 1;
  const scrolls = ['auto', 'scroll'].includes(style.overflowY);
  return {wide, tall, scrolls, inViewport: body.getBoundingClientRect().bottom <= innerHeight};
}"""


def validate(page) -> str:
    """Press Validate, return the dialog's text (the dialog stays open)."""
    page.locator(".validate-button").first.click()
    dialog = page.locator(".jp-Dialog:has(#validation-message)")
    dialog.wait_for(timeout=120_000)
    return dialog.inner_text()


def assert_dialog_fits(page) -> None:
    """Every line of the report readable without sideways scrolling, and all of it
    reachable: it fits the dialog, or the dialog's body scrolls."""
    fit = page.evaluate(DIALOG_FIT)
    assert not fit["wide"], f"the Validate report needs sideways scrolling: {fit}"
    assert fit["inViewport"] and (fit["scrolls"] or not fit["tall"]), fit


def close_dialog(page) -> None:
    page.locator(".jp-Dialog .jp-mod-accept").first.click()
    page.locator(".jp-Dialog").first.wait_for(state="detached", timeout=10_000)


def test_student_and_instructor_path_in_chromium(tmp_path):
    _require_browser()
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    laps: dict[str, float] = {}

    def lap(step: str) -> None:
        laps[step] = round(time.monotonic() - started, 1)
    shots = Shots(tmp_path / "screenshots")
    student = tmp_path / "student"
    export_student(ROOT, student)
    for name in (LAB1, LECTURE4):
        _solved(student / "release" / name / f"{name}.ipynb",
                ROOT / "source" / name / f"{name}.ipynb",
                student / "solved" / name / f"{name}.ipynb")
    _solved(student / "release" / LAB1 / f"{LAB1}.ipynb",
            ROOT / "source" / LAB1 / f"{LAB1}.ipynb",
            student / "buggy" / LAB1 / f"{LAB1}.ipynb", BUG)

    instructor = tmp_path / "instructor"
    instructor.mkdir()
    for name in ("source", "release"):
        shutil.copytree(ROOT / name, instructor / name)
    shutil.copy2(ROOT / "nbgrader_config.py", instructor / "nbgrader_config.py")

    with ExitStack() as stack:
        servers = {"student": LabServer(student, tmp_path, "student",
                                        config_path=student / ".jupyter"),
                   "instructor": LabServer(instructor, tmp_path, "instructor")}
        for server in servers.values():
            stack.callback(server.stop)
        pw = stack.enter_context(sync_playwright())
        base = servers["student"].ready()
        lap("student server ready")
        context = pw.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=str(CHROMIUM),
            headless=True, args=FLAGS, viewport={"width": 1400, "height": 900})
        # loopback only: the page may not reach anything else
        context.route(OFF_LOOPBACK, lambda route: route.abort())
        page = context.pages[0] if context.pages else context.new_page()
        page.set_default_timeout(60_000)

        # 1. Lab 1 as released: run every cell; the demos render, the stub raises.
        open_notebook(page, base, f"release/{LAB1}/{LAB1}.ipynb")
        lap("lab01 open, kernel idle")
        run_all(page)
        page.locator(".jp-OutputArea-output:has-text('NotImplementedError')").first.wait_for(
            timeout=90_000)
        wait_idle(page)
        outputs = page.locator(".jp-OutputArea-output").all_text_contents()
        shown = "\n".join(outputs)
        assert "tools: ['get_capital', 'get_weather']" in shown, shown[:500]
        assert "HTTP 400 invalid_request_error" in shown, shown[:1500]
        assert "separate user messages" in shown, shown[:2000]
        first_400 = page.locator(".jp-OutputArea-output:has-text('HTTP 400')").first
        first_400.scroll_into_view_if_needed()
        shots(page, "lab01-run-all")
        lap("lab01 run all")

        # 2. Validate the stub: a failure dialog.
        text = validate(page)
        shots(page, "lab01-validate-stub")
        assert "`agent` is not written yet" in text, text[:500]
        # nbgrader's dialog heads each entry "The following cell failed:"; the course sends
        # one entry per unwritten function and per other failing check, no test source.
        assert text.count("The following cell failed") == 2 and "Success!" not in text, text
        assert_dialog_fits(page)
        close_dialog(page)
        lap("lab01 validate stub")

        # 3. The student's tools and only those.
        page.locator(".lm-MenuBar-itemLabel:text-is('Nbgrader')").first.click()
        menu = page.locator(".lm-Menu").last
        menu.wait_for()
        items = menu.inner_text()
        shots(page, "student-nbgrader-menu")
        page.keyboard.press("Escape")
        for tool in ("Formgrader", "Course List", "Assignment List"):
            assert tool not in items, f"the student copy shows {tool!r}: {items}"
        assert page.locator(".validate-button").count() >= 1
        assert page.locator(".lm-TabBar-tab[title*='Create Assignment'], "
                            "#nbgrader-create_assignemnt").count() == 0, \
            "the student copy shows the Create Assignment sidebar"
        palette = page.evaluate(
            "['nbgrader:open-assignment-list', 'nbgrader:open-formgrader',"
            " 'nbgrader:open-course-list'].map(c => window.jupyterapp.commands.hasCommand(c))")
        assert palette == [False, False, False], palette
        off = disabled_plugins(exchange=False)
        plugins = page.evaluate(
            "ids => ids.map(id => window.jupyterapp.hasPlugin(id))", [*off, *STUDENT_PLUGINS])
        assert plugins == [False] * len(off) + [True] * len(STUDENT_PLUGINS), \
            f"plugins present (instructor tools, news prompt, then student tools): {plugins}"
        status = urllib.request.urlopen(f"{base}/api/status?token={TOKEN}").status
        assert status == 200
        try:
            urllib.request.urlopen(f"{base}/formgrader?token={TOKEN}")
            formgrader_served = True
        except urllib.error.HTTPError:
            formgrader_served = False
        assert not formgrader_served, "the student server still serves /formgrader"
        assert "Error fetching courses" not in page.inner_text("body")
        lap("student tools")

        # 4. Validate a copy with the solution filled in: success.
        open_notebook(page, base, f"solved/{LAB1}/{LAB1}.ipynb")
        text = validate(page)
        shots(page, "lab01-validate-solution")
        assert "Success! Your notebook passes all the tests." in text, text[:800]
        close_dialog(page)
        lap("lab01 validate solution")

        # 4b. Validate a copy with a seeded bug: one entry per failing check, each readable.
        open_notebook(page, base, f"buggy/{LAB1}/{LAB1}.ipynb")
        text = validate(page)
        shots(page, "lab01-validate-bug")
        named = set(re.findall(r"^check (\w+)$", text, re.M))
        assert named and named <= set(BUG.loses), (named, text[:2000])
        assert "### BEGIN" not in text and "def test" not in text, text[:2000]
        assert_dialog_fits(page)
        close_dialog(page)
        lap("lab01 validate bug")

        # 5. Lecture 4: the ledger panel redraws when a slider moves.
        open_notebook(page, base, f"solved/{LECTURE4}/{LECTURE4}.ipynb")
        run_all(page)
        slider = page.locator(".widget-slider").first
        slider.wait_for(timeout=120_000)
        # The panel is the output that holds the sliders (the request inspector above it
        # draws an image of its own).
        panel = page.locator(".jp-OutputArea-output:has(.widget-slider)").first
        panel_image = panel.locator(".widget-image").first
        panel_image.wait_for()
        panel_image.scroll_into_view_if_needed()
        table = panel.locator(".widget-html:has-text('cumulative')").first
        before_table = table.text_content()
        before_value = slider.locator(".widget-readout").first.text_content()
        before_src = panel_image.get_attribute("src")
        before_png = panel_image.screenshot()
        shots(page, "lecture04-panel-before")
        handle = slider.locator(".noUi-handle").first
        handle.focus()
        for _ in range(10):
            handle.press("ArrowRight")
        page.wait_for_function(
            "([el, src]) => el.getAttribute('src') !== src",
            arg=[panel_image.element_handle(), before_src], timeout=30_000)
        page.wait_for_timeout(500)
        after_png = panel_image.screenshot()
        shots(page, "lecture04-panel-after")
        assert after_png != before_png, "the plot image did not change after the slider moved"
        after_value = slider.locator(".widget-readout").first.text_content()
        assert after_value != before_value, f"the slider stayed at {before_value}"
        assert table.text_content() != before_table, "the table did not follow the slider"
        lap("lecture04 slider")
        page.evaluate("window.jupyterapp.serviceManager.sessions.shutdownAll()")

        # 6. The instructor: Formgrader on the course folder lists the assignments.
        base = servers["instructor"].ready()
        page = context.new_page()
        page.goto(f"{base}/formgrader?token={TOKEN}")
        rows = page.locator("table tbody tr")
        page.locator(f"tbody a:text-is('{LAB1}')").first.wait_for(timeout=60_000)
        listed = rows.all_text_contents()
        shots(page, "instructor-formgrader")
        for name in sorted(p.name for p in (ROOT / "source").iterdir() if p.is_dir()):
            assert any(name in row for row in listed), f"Formgrader does not list {name}: {listed}"
        lap("instructor formgrader")
        context.close()
        lap("browser closed")
    lap("servers stopped")

    assert len(shots.taken) == 8
    for path in shots.taken:
        assert path.stat().st_size > 5_000, f"{path.name} looks empty"
    (tmp_path / "timing.json").write_text(json.dumps(laps, indent=1))
    print("browser test timings (s since start):", laps)
