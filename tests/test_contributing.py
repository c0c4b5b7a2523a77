"""CONTRIBUTING.md's worked example works as written.

The files of "A new notebook, step by step" are taken from the guide's own code blocks
(each fenced as ````` ````python file=PATH `````), its `./dev course` commands from its bash
blocks, in order, and run on a course folder that holds nothing else; `course verify` must
then print every `ok` line the guide shows.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from . import ROOT

GUIDE = ROOT / "CONTRIBUTING.md"
SECTION = "## A new notebook, step by step"
_FENCE = re.compile(r"^(?P<ticks>`{3,})(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=ticks)[ \t]*$",
                    re.M | re.S)


def worked_example(text: str) -> str:
    """The guide's worked-example section, up to the next section."""
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start:end if end != -1 else len(text)]


def blocks(section: str) -> list[tuple[str, str]]:
    """Every fenced block of ``section`` as ``(info string, body)``, in order."""
    return [(m.group("info").strip(), m.group("body")) for m in _FENCE.finditer(section)]


def files(section: str) -> dict[str, str]:
    """The files the guide has you write: ``path -> text``."""
    out = {}
    for info, body in blocks(section):
        found = re.search(r"\bfile=(\S+)", info)
        if found:
            out[found.group(1)] = body
    return out


def commands(section: str) -> list[list[str]]:
    """The arguments of every ``./dev course`` command in the section's bash blocks."""
    return [shlex.split(line.strip())[2:] for info, body in blocks(section)
            if info.split()[:1] == ["bash"] for line in body.splitlines()
            if line.strip().startswith("./dev course ")]


def shown_ok_lines(section: str) -> list[str]:
    """The ``ok`` lines of the verify output the guide shows, without their timings."""
    return [_untimed(line) for info, body in blocks(section) if info == "text"
            for line in body.splitlines() if line.startswith("ok ")]


def _untimed(line: str) -> str:
    return re.sub(r" \(\d+(\.\d+)?s\)$", "", line.rstrip())


def test_the_guide_has_its_files_and_steps():
    section = worked_example(GUIDE.read_text(encoding="utf-8"))
    written = files(section)
    assert {p.split("/")[0] for p in written} == {"authoring", "tests"}, sorted(written)
    assert len(written) == 3, sorted(written)
    assert [c[0] for c in commands(section)] == ["build", "release", "check", "verify"]
    assert shown_ok_lines(section), "the guide shows no verify output"


@pytest.mark.slow
def test_the_worked_example_reaches_verify_green(tmp_path):
    section = worked_example(GUIDE.read_text(encoding="utf-8"))
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy2(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    for rel, text in files(section).items():
        (course / rel).parent.mkdir(parents=True, exist_ok=True)
        (course / rel).write_text(text, encoding="utf-8")
    out = ""
    for args in commands(section):
        # From this checkout, so the grader and the kernels import the same `course`.
        done = subprocess.run([sys.executable, "-m", "course", "--course-dir", str(course),
                               *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
        out = done.stdout
    printed = {_untimed(line) for line in out.splitlines()}
    missing = [line for line in shown_ok_lines(section) if line not in printed]
    assert not missing, (missing, out[-3000:])
    assert Path(course / "release" / "example_rate_limiter" / "example_rate_limiter.ipynb"
                ).is_file()
