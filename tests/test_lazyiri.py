"""``course.lazyiri``: importing the course defers rfc3987-syntax's grammar build, and IRI
checking through jsonschema still gives the same answers."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
{first}
import jsonschema
checker = jsonschema.FormatChecker()
before = {{"lark": "lark" in sys.modules,
          "stand_in": type(sys.modules.get("rfc3987_syntax")).__name__}}
answers = [checker.conforms(v, "iri") for v in
           ("http://\\u4f8b\\u5b50.\\u6d4b\\u8bd5/a", "not an iri", "http://x/%zz")]
print(json.dumps({{"before": before, "answers": answers,
                  "after": type(sys.modules["rfc3987_syntax"]).__name__}}))
"""


def _probe(first: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE.format(first=first)],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def test_without_the_course_jsonschema_builds_the_grammars_at_import():
    # The premise: if an upstream release makes this lazy itself, course.lazyiri can go.
    got = _probe("")
    assert got["before"] == {"lark": True, "stand_in": "module"}, got


def test_importing_the_course_defers_the_grammars_and_iri_answers_are_unchanged():
    plain, deferred = _probe(""), _probe("import course")
    assert deferred["before"] == {"lark": False, "stand_in": "_Deferred"}, deferred
    assert deferred["answers"] == plain["answers"] == [True, False, False], (plain, deferred)
    assert deferred["after"] == "module", "the first IRI check loads the real module"


def test_the_nbgrader_command_line_runs_nbgrader_after_the_course():
    import nbgrader

    from course.grading import runner

    assert runner.NBGRADER_MAIN.startswith("import course")
    proc = subprocess.run([sys.executable, "-c", runner.NBGRADER_MAIN, "--version"],
                          capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == f"nbgrader version {nbgrader.__version__}"
