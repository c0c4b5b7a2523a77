"""The request inspector: rows and failure patterns, driven by the real SDK against the fake.

Each scenario builds its requests by hand (this file holds no agent loop either) and
checks the exact rows and the exact set of patterns flagged, so an inspector that flags
everything, or nothing, fails here.
"""

from __future__ import annotations

import anthropic
import pytest

from course import live, tokens
from course.fakes import fake_client
from course.live import Inspector, examine, growth_png
from course.wire import message, text
from course.worlds import weather

MODEL = "claude-opus-5"
IDS = ["toolu_01WeatherParis0000A", "toolu_01WeatherTokyo0000B", "toolu_01WeatherLima00000C"]


def send(api, messages):
    """One request; a 400 is returned as the exception so the test can go on."""
    try:
        return api.client().messages.create(model=MODEL, max_tokens=1024, tools=weather.TOOLS,
                                            messages=messages)
    except anthropic.BadRequestError as err:
        return err


def result(tool_id, content):
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content}


def three_calls(api):
    """The first request of the three-cities scenario, and the history up to its reply."""
    reply = send(api, [{"role": "user", "content": weather.THREE_CITIES_GOAL}])
    history = [{"role": "user", "content": weather.THREE_CITIES_GOAL},
               {"role": "assistant", "content": [b.model_dump(exclude_none=True)
                                                 for b in reply.content]}]
    calls = [b for b in reply.content if b.type == "tool_use"]
    return history, calls


def kinds(row):
    return sorted(f.kind for f in row.findings)


def test_answered_in_one_message_is_a_clean_row_per_request():
    api = weather.three_cities()
    inspector = Inspector(api, interactive=False)
    history, calls = three_calls(api)
    answers = [result(c.id, weather.WEATHER[c.input["city"]]) for c in calls]
    final = send(api, history + [{"role": "user", "content": answers}])
    assert final.stop_reason == "end_turn"

    first, second = inspector.rows
    assert first.number == 1 and second.number == 2
    assert first.shape == "user[text]"
    assert first.tool_uses == {} and first.findings == ()
    assert first.reply == "200 tool_use [thinking,text,tool_use×3]"
    assert second.shape == "user[text] > assistant[thinking,text,tool_use×3] > user[tool_result×3]"
    assert second.tool_uses == dict.fromkeys(IDS, True)
    assert second.findings == ()
    assert second.reply == "200 end_turn [thinking,text]"
    assert inspector.token_counts == [tokens.request_tokens(b) for b in api.requests]
    assert inspector.token_counts[1] > inspector.token_counts[0]
    assert inspector.findings == []


def test_split_results_are_flagged_although_the_api_accepts_them():
    api = weather.three_cities()
    inspector = Inspector(api, interactive=False)
    history, calls = three_calls(api)
    split = [{"role": "user", "content": [result(c.id, weather.WEATHER[c.input["city"]])]}
             for c in calls]
    final = send(api, history + split)
    assert final.stop_reason == "end_turn", "the API merges user turns and accepts a split"

    row = inspector.rows[1]
    assert row.shape == ("user[text] > assistant[thinking,text,tool_use×3] > user[tool_result] > "
                         "user[tool_result] > user[tool_result]")
    assert row.tool_uses == dict.fromkeys(IDS, True)
    assert kinds(row) == ["split_results"]
    assert row.findings[0].message.startswith("tool results split across 3 user messages")
    assert inspector.rows[0].findings == ()


def test_a_missing_tool_result_is_flagged_with_its_id():
    api = weather.three_cities()
    inspector = Inspector(api, interactive=False)
    history, calls = three_calls(api)
    answers = [result(c.id, weather.WEATHER[c.input["city"]]) for c in calls
               if c.input["city"] != "Lima"]
    err = send(api, history + [{"role": "user", "content": answers}])
    assert isinstance(err, anthropic.BadRequestError)

    row = inspector.rows[1]
    assert row.tool_uses == {IDS[0]: True, IDS[1]: True, IDS[2]: False}
    assert "toolu_01WeatherLima00000C✗" in row.ids
    assert kinds(row) == ["missing_result"]
    assert IDS[2] in row.findings[0].message
    assert row.reply == "400 invalid_request_error"


def test_history_resent_without_the_tool_use_is_flagged():
    api = weather.two_step()
    inspector = Inspector(api, interactive=False)
    reply = send(api, [{"role": "user", "content": weather.GOAL}])
    call = next(b for b in reply.content if b.type == "tool_use")
    said = "".join(b.text for b in reply.content if b.type == "text")
    err = send(api, [{"role": "user", "content": weather.GOAL},
                     {"role": "assistant", "content": said},
                     {"role": "user", "content": [result(call.id, "Paris")]}])
    assert isinstance(err, anthropic.BadRequestError)

    row = inspector.rows[1]
    assert row.shape == "user[text] > assistant[text] > user[tool_result]"
    assert kinds(row) == ["dropped_tool_use"]
    assert call.id in row.findings[0].message
    assert "plain text" in row.findings[0].message
    assert row.tool_uses == {}


def test_examine_sees_an_assistant_turn_dropped_entirely():
    body = {"messages": [{"role": "user", "content": "hi"},
                         {"role": "user", "content": [result("toolu_x", "ok")]}]}
    status, findings = examine(body)
    assert [f.kind for f in findings] == ["dropped_tool_use"]
    assert "no tool_use with that id" in findings[0].message


def test_text_fallback_prints_each_request_as_it_happens(capsys):
    api = weather.three_cities()
    inspector = Inspector(api, interactive=False)
    inspector.show()
    assert "watching" in capsys.readouterr().out
    history, calls = three_calls(api)
    first = capsys.readouterr().out
    assert first.startswith("[inspector] request 1: 135 input tokens -> 200 tool_use"), first
    assert "user[text]" in first and "!!" not in first
    split = [{"role": "user", "content": [result(c.id, "14C")]} for c in calls]
    send(api, history + split)
    out = capsys.readouterr().out
    assert "[inspector] request 2:" in out
    assert "!! split_results: tool results split across 3 user messages" in out
    assert "toolu_01WeatherLima00000C✓" in out
    inspector.show()
    table = capsys.readouterr().out
    assert table.splitlines()[0].startswith("#  messages (role[blocks])")
    assert table.count("!! split_results") == 1 and "2 request(s)" in table


def test_widget_panel_redraws_after_every_request():
    api = weather.three_cities()
    inspector = Inspector(api, interactive=True)
    panel = inspector.widget
    summary, table, image = panel.children
    assert summary.value.count("0 request(s)") == 1
    # no chart before the first request (an empty one has axes -0.04 ... 0.04), and the
    # chart at its own pixel width, not stretched across the page
    assert image.layout.display == "none" and not image.value
    assert image.layout.width == "468px"
    history, calls = three_calls(api)
    assert "1 request(s)" in summary.value and table.value.count("class='live-row'") == 1
    assert image.layout.display is None
    one_png = bytes(image.value)
    assert one_png.startswith(b"\x89PNG")
    split = [{"role": "user", "content": [result(c.id, "14C")]} for c in calls]
    send(api, history + split)
    assert table.value.count("class='live-row'") == 2
    assert table.value.count("class='live-finding'") == 1
    assert "tool results split across user messages" in summary.value
    assert "#b00020" in summary.value
    assert bytes(image.value) != one_png


def test_streamed_replies_are_described_and_detach_stops_watching():
    client, api = fake_client([message([text("hello")]), message([text("again")])])
    inspector = Inspector(api, interactive=False)
    with client.messages.stream(model=MODEL, max_tokens=64,
                                messages=[{"role": "user", "content": "hi"}]) as stream:
        assert stream.get_final_text() == "hello"
    assert inspector.rows[0].reply == "200 end_turn [thinking,text]"
    inspector.detach()
    client.messages.create(model=MODEL, max_tokens=64,
                           messages=[{"role": "user", "content": "hi"}])
    assert len(inspector.rows) == 1 and len(api.requests) == 2


def test_growth_plot_marks_flagged_requests():
    plain, marked = growth_png([10, 20, 30]), growth_png([10, 20, 30], flagged=[2])
    assert plain.startswith(b"\x89PNG") and marked != plain


@pytest.mark.parametrize("module", ["course.live"])
def test_inspector_holds_no_agent_loop(module):
    import importlib
    import inspect

    source = inspect.getsource(importlib.import_module(module))
    assert "messages.create" not in source and "course.grading" not in source


def test_the_chart_is_drawn_only_when_asked_for_and_follows_new_requests(monkeypatch):
    drawn = []
    real = live.growth_png
    monkeypatch.setattr(live, "growth_png", lambda *a: drawn.append(a) or real(*a))
    api = weather.three_cities()
    inspector = Inspector(api, interactive=False)
    history, calls = three_calls(api)
    assert drawn == [], "without a widget frontend nothing asks for the chart"
    first = inspector.png
    assert first.startswith(b"\x89PNG") and inspector.png is first and len(drawn) == 1
    send(api, history + [{"role": "user", "content": [result(c.id, "sunny") for c in calls]}])
    assert inspector.png != first and len(drawn) == 2
    assert drawn[-1][0] == tuple(inspector.token_counts)


def test_the_growth_chart_counts_whole_requests_from_zero_tokens():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = live.growth_figure([2_100, 2_400, 2_800])
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks), ax.get_xticks()
    assert ax.get_ylim()[0] == 0
