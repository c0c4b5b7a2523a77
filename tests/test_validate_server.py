"""``./dev validate`` asks the student's running JupyterLab when there is one, and prints
exactly what it prints without it (``course/validate_server.py``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import nbformat
import pytest

from course import validate_server
from course.grading.authoring.export import export_student
from course.grading.proofs.mutation import load_mutants, submission
from course.grading.runner import read_notebook

from . import ROOT

LAB = "lab01_tool_loop"
CLI = "import sys; from course.validate_messages import main; sys.exit(main())"


# -- the client, against a stand-in server ------------------------------------------------


class _Endpoint(BaseHTTPRequestHandler):
    answer: object = None
    status = 200
    seen: list = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        type(self).seen.append((self.path, self.headers.get("Authorization"),
                                urllib.parse.parse_qs(body)))
        self.send_response(self.status)
        self.end_headers()
        self.wfile.write(json.dumps(self.answer).encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stand_in(tmp_path):
    """A server answering like nbgrader's endpoint, its runtime file, and the copy's root."""
    _Endpoint.seen = []
    httpd = HTTPServer(("127.0.0.1", 0), _Endpoint)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    root, runtime = tmp_path / "copy", tmp_path / "runtime"
    (root / "release").mkdir(parents=True)
    runtime.mkdir()
    (root / "release" / "nb.ipynb").write_text("{}")
    (runtime / f"jpserver-{os.getpid()}.json").write_text(json.dumps({
        "url": f"http://127.0.0.1:{httpd.server_port}/", "token": "t0k", "pid": os.getpid(),
        "root_dir": str(root)}))
    yield root, runtime
    httpd.shutdown()


def test_a_server_rooted_here_is_asked_as_the_button_asks(stand_in):
    root, runtime = stand_in
    _Endpoint.status, _Endpoint.answer = 200, {
        "success": True, "value": {"failed": [], validate_server.REPORT: "Success!\n"}}
    got = validate_server.validate(root / "release" / "nb.ipynb", here=root,
                                   runtime_dir=runtime)
    assert got == {"failed": [], validate_server.REPORT: "Success!\n"}
    assert _Endpoint.seen == [("/assignments/validate", "token t0k",
                               {"path": ["release/nb.ipynb"]})]


@pytest.mark.parametrize("status, answer", [
    (200, {"success": True, "value": {"failed": []}}),        # a validator without the report
    (200, {"success": False, "value": "Traceback ..."}),      # the server's validator failed
    (500, {"success": True, "value": {validate_server.REPORT: "x"}}),
    (200, "not an object"),
])
def test_an_answer_it_cannot_use_leaves_it_to_the_command(stand_in, status, answer):
    root, runtime = stand_in
    _Endpoint.status, _Endpoint.answer = status, answer
    assert validate_server.validate(root / "release" / "nb.ipynb", here=root,
                                    runtime_dir=runtime) is None
    assert len(_Endpoint.seen) == 1


def test_a_server_of_another_folder_or_a_dead_one_is_not_asked(stand_in, tmp_path):
    root, runtime = stand_in
    _Endpoint.status, _Endpoint.answer = 200, {
        "success": True, "value": {validate_server.REPORT: "x"}}
    other = tmp_path / "other"
    other.mkdir()
    (other / "nb.ipynb").write_text("{}")
    assert validate_server.validate(other / "nb.ipynb", here=other, runtime_dir=runtime) is None
    # a notebook outside the folder the command runs in
    assert validate_server.validate(other / "nb.ipynb", here=root, runtime_dir=runtime) is None
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    for f in runtime.glob("jpserver-*.json"):
        data = json.loads(f.read_text())
        f.write_text(json.dumps({**data, "pid": int(dead)}))
    assert validate_server.servers(runtime) == []
    assert validate_server.validate(root / "release" / "nb.ipynb", here=root,
                                    runtime_dir=runtime) is None
    assert _Endpoint.seen == []


# -- against a real Jupyter server in a student copy --------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(copy: Path, notebook: Path, runtime: Path) -> tuple[int, str]:
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)}
    proc = subprocess.run([sys.executable, "-c", CLI, str(notebook.relative_to(copy))],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout


@pytest.mark.slow
def test_through_jupyterlab_the_command_prints_what_it_prints_alone(tmp_path, monkeypatch):
    copy = tmp_path / "student"
    export_student(ROOT, copy)
    release = read_notebook(copy / "release" / LAB / f"{LAB}.ipynb")
    source = read_notebook(ROOT / "source" / LAB / f"{LAB}.ipynb")
    mutant = next(m for m in load_mutants(ROOT / "tests" / "mutants" / f"{LAB}.py")
                  if m.name == "reads_content_0")
    notebooks = {}
    for name, nb in (("finished", submission(release, source)),
                     ("stub", submission(release, source, answer=False)),
                     ("mutant", submission(release, source, mutant))):
        notebooks[name] = copy / "release" / LAB / f"{name}.ipynb"
        nbformat.write(nb, notebooks[name])

    alone = tmp_path / "no-server-runtime"
    alone.mkdir()
    by_itself = {name: _cli(copy, path, alone) for name, path in notebooks.items()}
    assert by_itself["finished"][0] == 0 and "Success!" in by_itself["finished"][1]
    assert by_itself["stub"][0] == 1 and by_itself["mutant"][0] == 1

    runtime, port = tmp_path / "runtime", _free_port()
    runtime.mkdir()
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyter"), "server", "--no-browser",
         "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         "--IdentityProvider.token=course-test", f"--ServerApp.root_dir={copy}"],
        cwd=copy, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while not validate_server.servers(runtime):
            assert server.poll() is None and time.monotonic() < deadline, "no server"
            time.sleep(0.5)
        monkeypatch.chdir(copy)
        for name, path in notebooks.items():
            answered = validate_server.validate(path, runtime_dir=runtime)
            assert answered is not None, f"{name}: the server gave no report"
            assert answered[validate_server.REPORT] == by_itself[name][1], name
            assert _cli(copy, path, runtime) == by_itself[name], name
    finally:
        server.terminate()
        server.wait(timeout=30)
