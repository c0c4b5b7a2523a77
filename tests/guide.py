"""CONTRIBUTING.md's worked example, taken from the guide itself and run.

The files of "A new notebook, step by step" come from the guide's own code blocks (each
fenced with four backticks and ``python file=PATH``), its ``./dev course`` commands from
its bash blocks, in order. ``python -m tests.guide`` runs those commands on a course
folder that holds nothing else and checks that ``course verify`` prints every ``ok`` line
the guide shows (over a minute on two busy cores, so it is not part of ``./dev test``;
``test_contributing`` checks the blocks are there).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

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


def run_example(course: Path) -> list[str]:
    """Write the guide's files into the empty folder ``course`` and run its commands there;
    what went wrong (empty when ``verify`` printed every line the guide shows)."""
    section = worked_example(GUIDE.read_text(encoding="utf-8"))
    shutil.copy2(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    for rel, text in files(section).items():
        (course / rel).parent.mkdir(parents=True, exist_ok=True)
        (course / rel).write_text(text, encoding="utf-8")
    out = ""
    for args in commands(section):
        # From this checkout, so the grader and the kernels import the same `course`.
        done = subprocess.run([sys.executable, "-m", "course", "--course-dir", str(course),
                               *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            return [f"`./dev course {shlex.join(args)}` exited {done.returncode}:",
                    done.stdout[-3000:], done.stderr[-3000:]]
        out = done.stdout
    printed = {_untimed(line) for line in out.splitlines()}
    return [f"the guide shows, verify did not print: {line}"
            for line in shown_ok_lines(section) if line not in printed]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="guide-") as tmp:
        wrong = run_example(Path(tmp))
    print("\n".join(wrong) if wrong else
          "the worked example of CONTRIBUTING.md reaches verify green as written")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
