"""The core course runs without the optional ``frameworks`` extra.

A subprocess makes LangGraph and LangChain unimportable (as on an install of ``.[dev]``
alone), imports every module of the ``course`` package, and runs Lab 1's answer against
its fake. Only the tier 2 notebook may need the extra.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from . import ROOT

SCRIPT = textwrap.dedent("""
    import importlib, pkgutil, sys

    BLOCKED = ("langgraph", "langchain")

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.startswith(BLOCKED):
                raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
            return None

    sys.meta_path.insert(0, Block())
    try:
        import langgraph  # noqa: F401
    except ModuleNotFoundError:
        pass
    else:
        raise SystemExit("the import block did not work")

    import course
    names = [m.name for m in pkgutil.walk_packages(course.__path__, "course.")
             if not m.name.endswith(".__main__")]  # that one runs the CLI
    for name in names:
        importlib.import_module(name)

    from course.worlds import weather
    from tests import notebook_code
    ns = notebook_code.namespace("lab01_tool_loop", preamble={"MODEL": "claude-opus-5"})
    out = weather.run(ns["agent"], weather.GOAL, weather.CountingDispatch(), weather.two_step())
    assert out == "It is 14C and raining in Paris.", out
    loaded = sorted(m for m in sys.modules if m.startswith(BLOCKED))
    assert not loaded, loaded
    print(len(names), "modules imported; lab 1 answered:", out)
""")


def test_course_imports_and_runs_without_langgraph_or_langchain():
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "modules imported; lab 1 answered: It is 14C and raining in Paris." in done.stdout


def test_the_tier2_world_is_one_of_the_modules_checked():
    import pkgutil

    import course

    assert "course.worlds.graphs" in {m.name for m in
                                      pkgutil.walk_packages(course.__path__, "course.")}
