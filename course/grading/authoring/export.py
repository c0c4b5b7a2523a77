"""The student copy of the course: ``release/`` and the student side of the support package.

``source/``, ``solutions/``, ``authoring/``, ``tests/`` and ``course/grading/`` stay behind:
they hold the answers, the hidden tests and the instructor's tools. The copy's nbgrader
configuration names the exchange folder (``c.Exchange.root``) when the instructor's
configuration, or ``course export --exchange``, sets one.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from ..runner import CONFIG_FILE, PipelineError

STUDENT_FILES = ("release", "course", "pyproject.toml", "environment.yml")
#: The copy's ``dev``: ``lab`` and ``validate`` only, installing what a student needs.
STUDENT_DEV = Path(__file__).with_name("student_dev.sh")
#: Tables of ``pyproject.toml`` that name instructor code: the ``course`` command runs
#: ``course.grading.cli``, which stays behind, so the copy declares no such command.
INSTRUCTOR_TABLES = ("project.scripts",)
# The student copy's nbgrader configuration: Validate only, nothing from course/grading/
# (which stays behind). Kernels talk over IPC (no "running over TCP without encryption"
# warning), start with the network guard on, and report errors in one line.
STUDENT_CONFIG = '''"""nbgrader configuration for the student copy of Owning the Agent Loop.

Validate (the nbgrader button, or `nbgrader validate <notebook>`) reads this file.
"""

import os
import tempfile

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.course_id = "owning-the-agent-loop"
c.Execute.timeout = 30
c.Execute.interrupt_on_timeout = True
c.Execute.extra_arguments = [
    "--HistoryManager.hist_file=:memory:",
    "--IPKernelApp.exec_lines=['import course.netguard as _ng; _ng.install(); del _ng']",
    "--InteractiveShell.xmode=Minimal",
]
# Kernels talk over local sockets (IPC), kept out of the notebook folder.
c.KernelManager.transport = "ipc"
c.KernelManager.ip = os.path.join(tempfile.gettempdir(), f"nbgrader-kernel-{os.getpid()}")
# `nbgrader validate` would cut each line of a message at 90 columns; it wraps them instead.
try:
    from course.validate_messages import install
except ImportError:  # the course package is not importable here: messages stay cut
    pass
else:
    install()
    # Validate's kernel is forked from a warm one this Jupyter server keeps
    # (course/kernelfork.py): the first click starts it; later clicks wait a fraction of a
    # second for their kernel instead of a Python start and the course's imports.
    c.Execute.kernel_manager_class = "course.kernelfork.ReadyKernelManager"
'''

# Where nbgrader's exchange lives is a deployment choice (nbgrader's own default is
# /usr/local/share/nbgrader/exchange); a copy without one says so instead of guessing.
NO_EXCHANGE = """
# No exchange folder is configured: the Assignment List reports that the exchange directory
# does not exist. Open the notebooks from release/ instead, or, when your instructor runs
# nbgrader's exchange, set the folder they name:
# c.Exchange.root = "/srv/nbgrader/exchange"
"""


def student_config(exchange: str | None) -> str:
    """The student copy's ``nbgrader_config.py``: :data:`STUDENT_CONFIG`, plus the exchange
    folder the Assignment List fetches from and submits to, when there is one."""
    if not exchange:
        return STUDENT_CONFIG + NO_EXCHANGE
    return STUDENT_CONFIG + (
        "\n# nbgrader's exchange: the Assignment List (and `nbgrader fetch_assignment`, `submit`,\n"
        "# `fetch_feedback`) go through this folder, which the instructor created for the class.\n"
        f"c.Exchange.root = {exchange!r}\n")


def configured_exchange(root: Path) -> str | None:
    """``c.Exchange.root`` as the instructor's ``nbgrader_config.py`` sets it, or None."""
    from traitlets.config.loader import PyFileConfigLoader

    try:
        cfg = PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()
    except Exception as exc:  # noqa: BLE001 - any error in the file: say which file
        raise PipelineError(f"{root / CONFIG_FILE}: cannot be read ({exc})") from None
    value = cfg.Exchange.root if "root" in cfg.Exchange else None
    return str(value) if value else None


INSTRUCTOR_ONLY = ("grading",)  # folders of course/ that stay with the instructor
_JUNK = shutil.ignore_patterns("__pycache__", "*.egg-info", ".ipynb_checkpoints")


def _ignore(folder: str, names: list[str]) -> set[str]:
    skip = set(_JUNK(folder, names))
    if Path(folder).name == "course":
        skip |= {n for n in names if n in INSTRUCTOR_ONLY}
    return skip


STUDENT_README = """# Owning the Agent Loop (student copy)

    ./dev lab

opens JupyterLab. Your notebooks are in `release/`: each says at the top what you
implement. Run the self-check cell, then **Validate**. Hidden tests grade more than the
visible ones. Nothing needs an API key or the network.

The first `./dev lab` installs the course's packages into `.venv` in this folder (a few
minutes, once; nothing outside it). The framework tier (`release/tier2_langgraph`) needs
LangGraph too: `./dev lab --frameworks` adds it. `./dev validate release/<name>/<name>.ipynb`
runs Validate from the command line: one entry per failing check, its message first, and
exit status 1 when validation fails. While `./dev lab` runs in this folder, it asks that
JupyterLab, which keeps a kernel warm for Validate, and answers in about a second.

`./dev lab` loads this copy's `.jupyter` settings (Validate{assignment_list}) and puts
this folder's `course/` on `PYTHONPATH`. With conda instead:
`PYTHONPATH=$PWD JUPYTER_CONFIG_PATH=$PWD/.jupyter jupyter lab`.

{handing_in}
"""
#: The student README's last paragraph, with and without an exchange folder.
HAND_IN_EXCHANGE = """The Assignment List (menu Nbgrader) fetches assignments and submits your
work through the exchange folder named in `nbgrader_config.py` (`c.Exchange.root`)."""
HAND_IN_FILES = """Your course hands out the notebooks as files, so this copy has no Assignment
List: work in `release/` and hand in as your instructor says. (With nbgrader's exchange, the
instructor exports the copy with `--exchange DIR`, and the Assignment List appears.)"""


# JupyterLab settings shipped in the copy; ``./dev lab`` puts LAB_CONFIG_DIR on
# JUPYTER_CONFIG_PATH. The student keeps Validate and the Assignment List; the
# instructor's tools and the news prompt (it asks to fetch news online) are off.
LAB_CONFIG_DIR = ".jupyter"
#: Off in every copy.
LAB_DISABLED_PLUGINS = (
    "@jupyter/nbgrader:create-assignment",
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:course-list",
    "@jupyterlab/apputils-extension:announcements",
)
SERVER_DISABLED_EXTENSIONS = (
    "nbgrader.server_extensions.formgrader",
    "nbgrader.server_extensions.course_list",
)
#: Off too in a copy for a course without an exchange folder: the Assignment List can only
#: say "Error fetching courses!" and that the exchange directory does not exist.
EXCHANGE_PLUGINS = ("@jupyter/nbgrader:assignment-list",)
EXCHANGE_SERVER_EXTENSIONS = ("nbgrader.server_extensions.assignment_list",)
#: On in a copy: starts Validate's warm kernel template with the server, so the first click
#: is as quick as the rest (course/kernelfork.py).
SERVER_ENABLED_EXTENSIONS = ("course.kernelfork",)


def disabled_plugins(exchange: bool) -> tuple[str, ...]:
    """The lab plugins a copy turns off, with or without an exchange folder."""
    return LAB_DISABLED_PLUGINS + (() if exchange else EXCHANGE_PLUGINS)


def disabled_server_extensions(exchange: bool) -> tuple[str, ...]:
    """The server extensions a copy turns off, with or without an exchange folder."""
    return SERVER_DISABLED_EXTENSIONS + (() if exchange else EXCHANGE_SERVER_EXTENSIONS)


#: Every kernel the copy starts (JupyterLab's, ``jupyter nbconvert --execute``'s) talks over
#: local sockets in a private folder: no TCP port, and no "Kernel is running over TCP
#: without encryption" on every start. (Validate's come from ``nbgrader_config.py``.)
IPC_KERNELS = '''"""Kernels over local sockets (IPC) in a private folder of their own."""

import os
import tempfile

c = get_config()  # noqa: F821 - provided by Jupyter when it loads this file
c.KernelManager.transport = "ipc"
c.KernelManager.ip = os.path.join(tempfile.mkdtemp(prefix="course-kernels-"), "kernel")
'''
IPC_CONFIG_FILES = ("jupyter_server_config.py", "jupyter_nbconvert_config.py")


def write_student_lab_config(folder: Path, exchange: bool = True) -> list[Path]:
    """Write ``folder/.jupyter``: page config that disables the instructor's lab plugins and
    the news prompt (and the Assignment List, without an ``exchange``), server config that
    turns off the matching server extensions and turns on the warm Validate kernel's, and
    :data:`IPC_KERNELS` for the server's and nbconvert's kernels."""
    config = folder / LAB_CONFIG_DIR
    page = config / "labconfig" / "page_config.json"
    server = config / "jupyter_server_config.json"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(json.dumps(
        {"disabledExtensions": dict.fromkeys(disabled_plugins(exchange), True)},
        indent=2) + "\n",
        encoding="utf-8")
    server.write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": {
            **dict.fromkeys(disabled_server_extensions(exchange), False),
            **dict.fromkeys(SERVER_ENABLED_EXTENSIONS, True)}}},
        indent=2) + "\n", encoding="utf-8")
    ipc = [config / name for name in IPC_CONFIG_FILES]
    for path in ipc:
        path.write_text(IPC_KERNELS, encoding="utf-8")
    return [page, server, *ipc]


def student_pyproject(text: str) -> str:
    """The copy's ``pyproject.toml``: the instructor's, less :data:`INSTRUCTOR_TABLES`
    (each from its header to the next table)."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        header = line.strip()
        if header.startswith("["):  # a table or an array of tables ends the last one
            skipping = header.strip("[]").strip() in INSTRUCTOR_TABLES
        if not skipping:
            out.append(line)
    return "".join(out)


def export_student(root: Path, target: Path, exchange: str | None = None) -> list[Path]:
    """Copy what a student needs (release/ and the student side of the support package)
    into ``target``, a new or empty folder.

    The copy's nbgrader configuration goes both to ``nbgrader_config.py`` (read from the copy's
    folder) and ``.jupyter/nbgrader_config.py`` (read wherever ``JUPYTER_CONFIG_PATH`` names
    ``.jupyter``, e.g. every student server of a JupyterHub). It names ``exchange``, or the
    exchange of the instructor's configuration when ``exchange`` is None."""
    if target.exists() and any(target.iterdir()):
        raise PipelineError(f"{target} is not empty; export into a new folder")
    if target.exists() and not target.is_dir():
        raise PipelineError(f"{target} is a file; export into a new folder")
    exchange = exchange if exchange is not None else configured_exchange(root)
    config = student_config(exchange)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PipelineError(f"cannot create {target.parent} for the student copy: "
                            f"{exc.strerror or exc}") from None
    staging = Path(tempfile.mkdtemp(prefix="student-", dir=target.parent))
    try:
        for name in STUDENT_FILES:
            src = root / name
            if src.is_dir():
                shutil.copytree(src, staging / name, ignore=_ignore)
            elif src.is_file():
                shutil.copy2(src, staging / name)
        project = staging / "pyproject.toml"
        if project.is_file():
            project.write_text(student_pyproject(project.read_text(encoding="utf-8")),
                               encoding="utf-8")
        (staging / "README.md").write_text(STUDENT_README.format(
            assignment_list=" and the Assignment List" if exchange else "",
            handing_in=HAND_IN_EXCHANGE if exchange else HAND_IN_FILES), encoding="utf-8")
        shutil.copy2(STUDENT_DEV, staging / "dev")
        (staging / "dev").chmod(0o755)
        write_student_lab_config(staging, exchange=bool(exchange))
        for where in (staging, staging / LAB_CONFIG_DIR):
            (where / CONFIG_FILE).write_text(config, encoding="utf-8")
        if target.exists():
            target.rmdir()
        staging.replace(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sorted(p for p in target.rglob("*") if p.is_file())
