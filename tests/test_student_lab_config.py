"""The student copy's JupyterLab settings: instructor tools and the news prompt are off.

The browser test shows the effect in a page; these checks are fast and name the cause:
the settings JupyterLab reads, and plugin ids that still exist in the installed bundles.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course.grading.authoring.export import (
    EXCHANGE_PLUGINS,
    LAB_CONFIG_DIR,
    LAB_DISABLED_PLUGINS,
    disabled_plugins,
    export_student,
)

from . import ROOT

PREFIX = Path(sys.prefix)
STUDENT_PLUGINS = ("@jupyter/nbgrader:validate-assignment", "@jupyter/nbgrader:assignment-list")


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("export") / "student"
    export_student(ROOT, target)
    return target


def _disabled(config_path: Path | None, tmp: Path) -> list[str]:
    """The plugins ``jupyter labextension list`` reports as disabled."""
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp / "cfg"), "NO_COLOR": "1"}
    env.pop("JUPYTER_CONFIG_PATH", None)
    if config_path is not None:
        env["JUPYTER_CONFIG_PATH"] = str(config_path)
    out = subprocess.run([str(Path(sys.executable).parent / "jupyter"), "labextension", "list"],
                         capture_output=True, text=True, env=env, timeout=120)
    text = out.stdout + out.stderr
    if "Disabled extensions:" not in text:
        return []
    tail = text.split("Disabled extensions:", 1)[1].splitlines()
    return [ln.strip() for ln in tail if ln.startswith("    ") and ln.strip()]


def _settings(copy: Path) -> tuple[list[str], dict]:
    page = json.loads((copy / LAB_CONFIG_DIR / "labconfig" / "page_config.json").read_text())
    server = json.loads((copy / LAB_CONFIG_DIR / "jupyter_server_config.json").read_text())
    return (sorted(k for k, v in page["disabledExtensions"].items() if v),
            server["ServerApp"]["jpserver_extensions"])


def test_copy_ships_the_settings(copy):
    """The course's own config names no exchange: the copy has no Assignment List either."""
    plugins, extensions = _settings(copy)
    assert plugins == sorted([*LAB_DISABLED_PLUGINS, "@jupyter/nbgrader:assignment-list"])
    assert extensions == {"nbgrader.server_extensions.formgrader": False,
                          "nbgrader.server_extensions.course_list": False,
                          "nbgrader.server_extensions.assignment_list": False,
                          "course.kernelfork": True}
    assert not set(STUDENT_PLUGINS) & set(LAB_DISABLED_PLUGINS)
    readme = (copy / "README.md").read_text()
    assert "this copy has no Assignment\nList" in readme and "{" not in readme


def test_a_copy_with_an_exchange_keeps_the_assignment_list(tmp_path):
    copy = tmp_path / "student"
    export_student(ROOT, copy, exchange=str(tmp_path / "exchange"))
    plugins, extensions = _settings(copy)
    assert plugins == sorted(LAB_DISABLED_PLUGINS)
    assert "nbgrader.server_extensions.assignment_list" not in extensions
    assert set(EXCHANGE_PLUGINS) <= set(STUDENT_PLUGINS)
    readme = (copy / "README.md").read_text()
    assert "settings (Validate and the Assignment List)" in readme
    assert "no Assignment" not in readme and "{" not in readme


def test_jupyterlab_reads_them_from_the_copy_only(copy, tmp_path):
    with_copy = _disabled(copy / LAB_CONFIG_DIR, tmp_path)
    assert sorted(with_copy) == sorted(disabled_plugins(exchange=False)), with_copy
    without = _disabled(None, tmp_path)
    assert not set(without) & set(LAB_DISABLED_PLUGINS), (
        f"the instructor's JupyterLab has student settings too: {without}")


@pytest.mark.parametrize("plugin", [*LAB_DISABLED_PLUGINS, *STUDENT_PLUGINS])
def test_plugin_ids_exist_in_the_installed_bundles(plugin):
    """A renamed plugin would make the setting a silent no-op: the id must still exist."""
    package, _ = plugin.split(":")
    if package.startswith("@jupyter/"):
        static = PREFIX / "share/jupyter/labextensions" / package / "static"
    else:
        static = PREFIX / "share/jupyter/lab/static"
    assert static.is_dir(), static
    needle = f'"{plugin}"'
    assert any(needle in p.read_text(encoding="utf-8", errors="ignore")
               for p in static.glob("*.js")), f"no plugin {plugin} in {static}"


def test_dev_lab_puts_the_copy_settings_on_the_config_path():
    dev = (ROOT / "dev").read_text()
    assert f'[ -d {LAB_CONFIG_DIR} ] && export JUPYTER_CONFIG_PATH="$PWD/{LAB_CONFIG_DIR}' in dev
