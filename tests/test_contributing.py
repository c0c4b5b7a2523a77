"""CONTRIBUTING.md's worked example is all there: three files to write and the four
``./dev course`` steps, in order, with the ``verify`` output it promises. Running it
(``python -m tests.guide``, :mod:`tests.guide`) takes over a minute, so the suite checks the
blocks and the run is a command of its own."""

from __future__ import annotations

from .guide import GUIDE, commands, files, shown_ok_lines, worked_example


def test_the_guide_has_its_files_and_steps():
    section = worked_example(GUIDE.read_text(encoding="utf-8"))
    written = files(section)
    assert sorted(written) == ["authoring/example_rate_limiter/example_rate_limiter.py",
                               "tests/blind/example_rate_limiter.py",
                               "tests/mutants/example_rate_limiter.py"], sorted(written)
    assert [c[0] for c in commands(section)] == ["build", "release", "check", "verify"]
    assert all(c[-1] == "example_rate_limiter" for c in commands(section)
               if c[0] in ("release", "verify"))
    assert len(shown_ok_lines(section)) == 6, shown_ok_lines(section)
