"""JupyterLab shows the nbgrader extension: Formgrader, Assignment List and Validate."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from . import ROOT

pytestmark = pytest.mark.slow  # starts kernels and nbgrader processes

BIN = Path(sys.executable).parent


def _jupyter(*args: str) -> str:
    proc = subprocess.run([str(BIN / "jupyter"), *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "NO_COLOR": "1"})
    return proc.stdout + proc.stderr


def test_lab_extension_is_installed_and_enabled():
    out = _jupyter("labextension", "list")
    line = next((ln for ln in out.splitlines() if "@jupyter/nbgrader" in ln), "")
    assert "enabled" in line and "OK" in line, out


@pytest.mark.parametrize("extension", ["formgrader", "assignment_list", "validate_assignment"])
def test_server_extension_is_enabled(extension):
    out = _jupyter("server", "extension", "list")
    assert f"nbgrader.server_extensions.{extension} " in out.replace("\x1b[32m", "") \
        or f"nbgrader.server_extensions.{extension}" in out, out
    assert f"nbgrader.server_extensions.{extension}  OK" in out.replace("\x1b[32m", "").replace(
        "\x1b[0m", ""), out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_formgrader_and_lab_pages_are_served(tmp_path):
    port, token = _free_port(), "course-test-token"
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    server = subprocess.Popen(
        [str(BIN / "jupyter"), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
         f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def get(path: str) -> tuple[int, str]:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}?token={token}",
                                        timeout=10) as r:
                return r.status, r.read().decode("utf-8", "replace")

        deadline = time.monotonic() + 90
        while True:
            try:
                status, _ = get("/api/status")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.5)
        assert status == 200
        status, page = get("/formgrader")
        assert status == 200 and "formgrader" in page.lower()
        status, page = get("/lab")
        assert status == 200 and "@jupyter/nbgrader" in page
    finally:
        server.terminate()
        server.wait(timeout=30)
