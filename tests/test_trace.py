"""course.trace: the Step and Trace containers every lab from 6 on reads."""

from __future__ import annotations

import dataclasses

from course.trace import Step, Trace


def test_step_defaults_and_fields():
    s = Step("get_order", {"id": "4471"}, "ok")
    assert (s.tool, s.args, s.result, s.is_error, s.batch) == (
        "get_order", {"id": "4471"}, "ok", False, 0)
    assert [f.name for f in dataclasses.fields(Step)] == [
        "tool", "args", "result", "is_error", "batch"]


def test_trace_defaults_are_not_shared():
    a, b = Trace(), Trace()
    a.steps.append(Step("x", {}, ""))
    assert b.steps == [] and (b.text, b.usd) == ("", 0.0)
    assert [f.name for f in dataclasses.fields(Trace)] == ["steps", "text", "usd"]


def test_trace_positional_order_and_equality():
    steps = [Step("a", {}, "r", batch=1)]
    assert Trace(steps, "done", 0.5) == Trace(steps=steps, text="done", usd=0.5)
    assert not hasattr(Trace(), "tool_calls")  # one shape: steps, never tool_calls
