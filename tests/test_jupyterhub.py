"""The course on a JupyterHub: a student logs in, their server spawns with the student copy's
settings, and nbgrader's Assignment List lists and fetches the released assignment.

A smoke test on loopback with the hub's dummy authenticator (any name and password) and its
local process spawner without Unix accounts (every server runs as the user running the
test, with its own home folder). It needs ``jupyterhub`` (PyPI) and
``configurable-http-proxy`` (Debian: node-configurable-http-proxy), and is skipped without
them; neither is a dependency of the course.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from course.grading.authoring import export
from course.grading.runner import CONFIG_FILE, nbgrader_env

from . import ROOT
from .nbgrader_apps import run_nbgrader

PROXY = shutil.which("configurable-http-proxy")
# Debian's proxy keeps its node modules here; a node from elsewhere does not look there.
NODE_MODULES = Path("/usr/share/nodejs")


def _missing() -> str:
    """What this machine lacks for the hub test ("" when nothing)."""
    try:
        import jupyterhub  # noqa: F401
    except ImportError:
        return "jupyterhub is not installed (pip install -e '.[hub]'; ./dev does it)"
    if PROXY is None:
        return ("configurable-http-proxy is not installed (apt-get install "
                "node-configurable-http-proxy; ./dev test does it as root)")
    return ""


if _missing():  # CI installs both through ./dev, so there a missing piece is a failure
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        raise RuntimeError(f"CI is set and {_missing()}")
    pytest.skip(_missing(), allow_module_level=True)
import httpx  # noqa: E402 - a dependency of jupyterhub

pytestmark = pytest.mark.slow

LAB = "lab01_tool_loop"
COURSE_ID = "owning-the-agent-loop"
USER = "alice"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _hub_config(base: Path, copy: Path, ports: tuple[int, int, int]) -> str:
    public, hub, api = ports
    bindir = Path(sys.executable).parent
    environment = {"JUPYTER_CONFIG_PATH": str(copy / export.LAB_CONFIG_DIR),
                   "PATH": os.pathsep.join([str(bindir), os.environ.get("PATH", "")])}
    args = ["--ServerApp.allow_root=True"] if os.getuid() == 0 else []
    return f"""c = get_config()  # noqa: F821
c.JupyterHub.bind_url = "http://127.0.0.1:{public}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api}"
c.ConfigurableHTTPProxy.command = [{PROXY!r}]
c.ConfigurableHTTPProxy.pid_file = {str(base / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///{base / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(base / "cookie_secret")!r}
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(base / "home" / "{username}")!r}
c.Spawner.cmd = [{str(bindir / "jupyterhub-singleuser")!r}]
c.Spawner.args = {args!r}
# What a course hub sets for its students: the student copy's settings (instructor tools
# off, nbgrader's exchange and course id) on every student server.
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
"""


def _wait(url: str, proc: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"jupyterhub exited with code {proc.returncode}"
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} did not answer within {seconds:.0f}s")


def test_a_student_logs_in_and_fetches_from_the_assignment_list(tmp_path):
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    # The instructor releases Lab 1 into the exchange (release/ as `course release` wrote it).
    course = tmp_path / "course"
    shutil.copytree(ROOT / "release" / LAB, course / "release" / LAB)
    shutil.copy2(ROOT / CONFIG_FILE, course / CONFIG_FILE)
    with (course / CONFIG_FILE).open("a", encoding="utf-8") as fh:
        fh.write(f"\nc.Exchange.root = {str(exchange)!r}\n")
    run_nbgrader(course, {**nbgrader_env(), "HOME": str(tmp_path)}, "release_assignment", LAB)
    copy = tmp_path / "student-copy"
    export.export_student(ROOT, copy, exchange=str(exchange))
    (tmp_path / "home" / USER).mkdir(parents=True)

    ports = (_free_port(), _free_port(), _free_port())
    (tmp_path / "hub_config.py").write_text(_hub_config(tmp_path, copy, ports), encoding="utf-8")
    env = {**nbgrader_env(), "HOME": str(tmp_path)}
    if NODE_MODULES.is_dir():
        env["NODE_PATH"] = os.pathsep.join(filter(None, [str(NODE_MODULES),
                                                         env.get("NODE_PATH")]))
    log = (tmp_path / "hub.log").open("w")
    hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", "hub_config.py"],
                           cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)
    base = f"http://127.0.0.1:{ports[0]}"
    try:
        _wait(f"{base}/hub/health", hub)
        with httpx.Client(base_url=base, follow_redirects=True, timeout=60) as http:
            page = http.get("/hub/login")
            xsrf = re.search(r'name="_xsrf" value="([^"]+)"', page.text)
            form = {"username": USER, "password": "any", "_xsrf": xsrf.group(1) if xsrf else ""}
            http.post("/hub/login", data=form)  # logs in, then the hub spawns the server
            deadline = time.monotonic() + 180
            while True:  # JupyterLab's page, once the server is up and the hub's OAuth done
                r = http.get(f"/user/{USER}/lab")
                if r.status_code == 200 and r.url.path == f"/user/{USER}/lab":
                    break
                assert time.monotonic() < deadline, f"{USER}'s server never answered: {r.url}"
                time.sleep(1)

            # the copy's settings reached the server: the instructor's extensions are off
            assert http.get(f"/user/{USER}/formgrader").status_code == 404
            listed = http.get(f"/user/{USER}/assignments", params={"course_id": COURSE_ID})
            body = listed.json()
            assert body["success"], body["value"]
            assert [(a["course_id"], a["assignment_id"], a["status"]) for a in body["value"]] \
                == [(COURSE_ID, LAB, "released")]

            token = next(c.value for c in http.cookies.jar
                         if c.name == "_xsrf" and c.path.startswith(f"/user/{USER}"))
            fetched = http.post(f"/user/{USER}/assignments/fetch",
                                data={"course_id": COURSE_ID, "assignment_id": LAB},
                                headers={"X-XSRFToken": token})
            assert fetched.status_code == 200, fetched.text[:300]
            assert [a["status"] for a in fetched.json()["value"]] == ["fetched"]
        assert (tmp_path / "home" / USER / LAB / f"{LAB}.ipynb").is_file()
    finally:
        hub.send_signal(signal.SIGTERM)  # the hub stops the proxy and the servers it spawned
        try:
            hub.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()
        log.close()
