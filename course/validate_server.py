"""``./dev validate`` through the student's own running JupyterLab, whose Validate button
keeps a warm kernel template (:class:`course.kernelfork.ReadyKernelManager`): the command
then costs one request instead of a Python start, nbgrader's import and a kernel's start.

A server is used when this user's runtime folder lists it (jupyter_core's
``jupyter_runtime_dir``: one ``jpserver-<pid>.json`` per running Jupyter server, with its
``url``, ``token``, ``root_dir`` and ``pid``), its process is alive, and its root folder is
the folder the command runs in (where the copy's ``nbgrader_config.py`` is, which the
server's validator reads too) and holds the notebook. It is asked at nbgrader's own
endpoint, as the button asks (``nbgrader/server_extensions/validate_assignment/handlers.py``:
``POST /assignments/validate`` with ``path`` relative to the root; token authentication),
and its answer is used only if it carries the report this copy's validator writes
(:data:`course.validate_messages.REPORT`). Anything else (no server, another folder's
server, a refused or failed request, an answer without the report) gives ``None``, and the
caller validates in its own process: same checks, only slower.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

#: The key of the validator's result that holds the printed report (the same string as
#: ``course.validate_messages.REPORT``; kept here so this module imports nothing heavy).
REPORT = "course_report"
#: Seconds to wait for a server's answer: a whole notebook runs before it comes.
TIMEOUT = 600.0


def servers(runtime_dir: Path | None = None) -> list[dict[str, Any]]:
    """The Jupyter servers this user runs, newest first, as their runtime files say."""
    if runtime_dir is None:
        from jupyter_core.paths import jupyter_runtime_dir

        runtime_dir = Path(jupyter_runtime_dir())
    found = []
    for info in sorted(runtime_dir.glob("jpserver-*.json"), key=_mtime, reverse=True):
        try:
            data = json.loads(info.read_text(encoding="utf-8"))
            os.kill(int(data["pid"]), 0)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unreadable, or its process is gone
        if isinstance(data.get("url"), str) and isinstance(data.get("root_dir"), str):
            found.append(data)
    return found


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def validate(notebook: Path, *, here: Path | None = None,
             runtime_dir: Path | None = None, timeout: float = TIMEOUT
             ) -> dict[str, Any] | None:
    """``Validator.validate``'s result for ``notebook`` from a server rooted at ``here``
    (the working folder), or None when no such server answers with a report."""
    here = (here or Path.cwd()).resolve()
    target = notebook.resolve()
    if not target.is_relative_to(here):
        return None
    for server in servers(runtime_dir):
        if Path(server["root_dir"]).resolve() != here:
            continue
        result = _ask(server, target.relative_to(here).as_posix(), timeout)
        if result is not None:
            return result
    return None


def _ask(server: dict[str, Any], path: str, timeout: float) -> dict[str, Any] | None:
    url = urllib.parse.urljoin(server["url"], "assignments/validate")
    request = urllib.request.Request(
        url, data=urllib.parse.urlencode({"path": path}).encode(), method="POST",
        headers={"Authorization": f"token {server.get('token', '')}"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            answer = json.loads(reply.read().decode("utf-8"))
    except (OSError, urllib.error.URLError, ValueError):
        return None
    if not isinstance(answer, dict) or answer.get("success") is not True:
        return None
    value = answer.get("value")
    if isinstance(value, str):  # nbgrader's own button accepts the result as JSON text too
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, dict) or not isinstance(value.get(REPORT), str):
        return None
    return value
