"""CONTRIBUTING.md's worked example is all there: three files to write and the four
``./dev course`` steps, in order, with the ``verify`` output it promises; and, in the slow
lane, it runs as written (:mod:`tests.guide`, also ``python -m tests.guide`` on its own): the
guide's files in an empty course folder, its commands in order, and ``verify`` prints every
``ok`` line the guide shows."""

from __future__ import annotations

import pytest

from .guide import GUIDE, commands, files, run_example, shown_ok_lines, worked_example


def test_the_guide_has_its_files_and_steps():
    section = worked_example(GUIDE.read_text(encoding="utf-8"))
    written = files(section)
    assert sorted(written) == ["authoring/example_rate_limiter/example_rate_limiter.py",
                               "tests/blind/example_rate_limiter.py",
                               "tests/mutants/example_rate_limiter.py"], sorted(written)
    assert [c[0] for c in commands(section)] == ["build", "release", "check", "verify"]
    assert all(c[-1] == "example_rate_limiter" for c in commands(section)
               if c[0] in ("release", "verify"))
    assert len(shown_ok_lines(section)) == 8, shown_ok_lines(section)


@pytest.mark.slow
def test_the_guides_worked_example_reaches_verify_green(tmp_path):
    """About 80 s on two cores: build, release, check and verify of a new notebook."""
    assert run_example(tmp_path) == []
