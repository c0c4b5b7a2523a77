"""A notebook that needs an optional extra this environment lacks is named with the
``pip install`` that brings it, never a traceback (before: ``course check`` without the
``frameworks`` extra died with ``ModuleNotFoundError: langchain_core``)."""

from __future__ import annotations

import textwrap

import pytest

from course.grading.authoring import build
from course.grading.extras import extra_for, install_hint, missing_module

from . import ROOT

#: Imported by Python at start-up from PYTHONPATH: makes LangGraph and LangChain
#: unimportable in every kernel started from the test, as on an install without the extra.
BLOCKER = textwrap.dedent("""
    import sys

    class _Block:
        def find_spec(self, name, path=None, target=None):
            if name.startswith(("langgraph", "langchain")):
                raise ModuleNotFoundError(f"No module named {name!r}")
            return None

    sys.meta_path.insert(0, _Block())
""")


def test_the_module_a_message_names_and_the_extra_that_brings_it():
    assert missing_module("No module named 'langchain_core'") == "langchain_core"
    assert missing_module("No module named 'langgraph.checkpoint.sqlite'") == \
        "langgraph.checkpoint.sqlite"
    assert missing_module("cannot import name 'x'") is None
    # The README: "The framework tier needs pip install -e ".[frameworks]"".
    assert extra_for("langchain_core") == "frameworks"
    assert extra_for("langgraph.checkpoint.sqlite") == "frameworks"
    assert extra_for("numpy") is None  # a core dependency, in no extra
    assert install_hint("langchain_core").endswith(
        "from the optional 'frameworks' extra, which is not installed: "
        'pip install -e ".[frameworks]" (./dev installs it)')


@pytest.mark.slow
def test_a_solution_that_needs_a_missing_extra_is_skipped_or_named(tmp_path, monkeypatch):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    skipped: list[str] = []
    changed = build.build_solutions(ROOT, ["tier2_langgraph"], check=True, jobs=1,
                                    skipped=skipped)
    assert changed == []  # the committed notebook is kept as it is, not "should not exist"
    (why,) = skipped
    assert why.startswith("solutions/tier2_langgraph/tier2_langgraph.ipynb not built: the "
                          "notebook needs the module 'lang"), why
    assert why.endswith('pip install -e ".[frameworks]" (./dev installs it)'), why
    with pytest.raises(build.MissingModule, match=r"pip install -e \"\.\[frameworks\]\""):
        build.build_solutions(ROOT, ["tier2_langgraph"], check=True, jobs=1)
