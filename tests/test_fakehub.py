"""The grader's hub of fakes (``course/grading/execution/fakehub.py``) and its kernel side
(``course/hub.py``): a served world fake answers as the local one does, its log is the
grader's, a record keeps only a reference to it, and the hub's caps hold."""

from __future__ import annotations

import socket as sockets
import time

import anthropic
import httpx2
import pytest

from course import hub
from course.cassette import ReplayMiss
from course.fakes import FakeAPI
from course.grading.execution import fakehub
from course.observe import record
from course.worlds import weather

GOAL = [{"role": "user", "content": weather.GOAL}]


def ask(client: anthropic.Anthropic, messages=GOAL):
    return client.messages.create(model="claude-opus-5", max_tokens=1024,
                                  tools=weather.TOOLS, messages=messages)


@pytest.fixture
def served(tmp_path):
    with fakehub.Hub(tmp_path) as h:
        hub.activate(h.socket)
        try:
            yield h
        finally:
            hub.activate(None)


def test_without_the_hub_a_served_factory_builds_its_fake_here():
    api = weather.two_step()
    assert isinstance(api, FakeAPI)
    assert ask(api.client()).stop_reason == "tool_use"


def test_under_the_hub_the_fake_and_its_log_live_in_the_grader(served):
    api = weather.two_step()
    assert isinstance(api, hub.RemoteFake)
    reply = ask(api.client())
    assert reply.stop_reason == "tool_use" and [b.type for b in reply.content] == [
        "thinking", "text", "tool_use"]
    assert len(served.fakes) == 1 and len(served.fakes[0].requests) == 1
    assert list(api.requests) == served.fakes[0].requests  # the visible checks read this


def test_a_record_keeps_a_reference_and_the_grader_puts_its_own_log_there(served):
    api = weather.two_step()
    ask(api.client())
    rec = record(requests=api.requests, n=1)
    assert rec == {"requests": {hub.REF: 0, "field": "requests"}, "n": 1}
    served.fakes[0].requests[0]["marker"] = "the grader's copy"
    resolved = served.resolve(rec, since=0)
    got = hub.log_of(resolved["requests"])
    assert isinstance(got, hub.ServedLog) and got[0]["marker"] == "the grader's copy"
    assert resolved["n"] == 1


def test_a_judge_refuses_a_log_that_is_not_the_graders():
    with pytest.raises(AssertionError, match="did not come from the grader"):
        hub.log_of([{"model": "claude-opus-5"}])
    with pytest.raises(AssertionError, match="did not come from the grader"):
        hub.log_of({hub.REF: 0, "field": "requests"})  # a reference nobody resolved


@pytest.mark.parametrize("ref", [{hub.REF: 5, "field": "requests"},
                                 {hub.REF: 0, "field": "paths"},
                                 {hub.REF: "0", "field": "requests"}])
def test_a_reference_to_no_fake_of_this_cell_is_refused(served, ref):
    weather.two_step()
    with pytest.raises(hub.HubError, match="did not build through the grader"):
        served.resolve({"requests": ref}, since=0)


def test_a_fake_built_before_the_cell_cannot_be_named(served):
    weather.two_step()
    since = served.mark()
    weather.two_step()
    assert served.resolve({"r": {hub.REF: 1, "field": "requests"}}, since)["r"] == []
    with pytest.raises(hub.HubError):
        served.resolve({"r": {hub.REF: 0, "field": "requests"}}, since)


def test_the_api_rules_hold_through_the_hub(served):
    local, remote = weather.two_step.local(), weather.two_step()
    prefill = [*GOAL, {"role": "assistant", "content": "It is"}]
    errors = []
    for api in (local, remote):
        with pytest.raises(anthropic.BadRequestError) as err:
            ask(api.client(), prefill)
        errors.append((err.value.status_code, err.value.body["error"]["message"]))
    assert errors[0] == errors[1] and errors[0][0] == 400, errors


def test_a_replay_miss_in_the_grader_is_raised_in_the_kernel(served):
    api = weather.endless(limit=1)
    client = api.client()
    first = ask(client)
    with pytest.raises(ReplayMiss):
        ask(client, [*GOAL, {"role": "assistant", "content": first.content},
                     {"role": "user", "content": [{"type": "tool_result",
                                                   "tool_use_id": first.content[-1].id,
                                                   "content": "14C, rain"}]}])


def test_a_stream_arrives_through_the_hub(served):
    api = weather.two_text_answer()
    with api.client().messages.stream(model="claude-opus-5", max_tokens=1024,
                                      messages=GOAL) as stream:
        text = "".join(stream.text_stream)
    assert text == "Paris is 14C and rainy. Take an umbrella."


@pytest.mark.parametrize("factory", ["os:system", "course.worlds.weather:dispatch",
                                     "course.fakes:FakeAPI", "course.worlds.nowhere:x"])
def test_the_hub_builds_only_served_world_factories(served, factory):
    with pytest.raises(hub.HubError, match="refused"):
        hub.RemoteFake.create(served.socket, factory, [], {})
    assert served.fakes == []


def test_the_hub_caps_the_fakes_and_the_bytes_it_holds(served, monkeypatch):
    monkeypatch.setattr(fakehub, "MAX_FAKES", 2)
    weather.two_step(), weather.two_step()
    with pytest.raises(hub.HubError, match="more than 2 fakes"):
        weather.two_step()
    monkeypatch.setattr(fakehub, "MAX_LOG_BYTES", served.held + 10)
    with pytest.raises(anthropic.APIStatusError) as err:
        ask(hub.RemoteFake(served.socket, 0).client())
    assert err.value.status_code == 413 and served.fakes[0].requests == []


def test_a_body_over_the_apis_32_mb_is_refused_unread(served):
    weather.two_step()
    with sockets.socket(sockets.AF_UNIX) as s:
        s.connect(served.socket)
        s.settimeout(5)
        s.sendall(f"POST /fakes/0/v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: "
                  f"{fakehub.MAX_BODY + 1}\r\n\r\n{{}}".encode())
        head = s.recv(200).decode()
    assert head.startswith("HTTP/1.1 413") and served.fakes[0].requests == [], head


def test_connections_past_the_cap_are_closed_and_the_hub_recovers(served):
    weather.two_step()
    held = []
    for _ in range(fakehub.MAX_CONNECTIONS):
        s = sockets.socket(sockets.AF_UNIX)
        s.connect(served.socket)
        held.append(s)
    extra = sockets.socket(sockets.AF_UNIX)
    extra.connect(served.socket)
    extra.settimeout(5)
    try:
        extra.sendall(b"GET /fakes/0/requests HTTP/1.1\r\nhost: x\r\n\r\n")
        got = extra.recv(100)
    except (ConnectionResetError, BrokenPipeError):  # closed with our request unread
        got = b""
    assert got == b"", "a connection past the cap must be closed unanswered"
    for s in held:
        s.close()
    log = None
    for _ in range(100):  # the held connections' threads see their close and end
        try:
            with httpx2.Client(transport=httpx2.HTTPTransport(uds=served.socket)) as http:
                log = http.get(f"{hub.HOST}/fakes/0/requests").json()
            break
        except httpx2.TransportError:
            time.sleep(0.05)
    assert log == [], "the hub answers again once the held connections are gone"


@pytest.mark.slow
@pytest.mark.parametrize("lab, factory, at_least", [
    ("lab01_tool_loop", "course.worlds.weather:two_step", 20),
    # LangGraph's ChatAnthropic reaches the grader's fakes through RemoteFake.serve()
    ("tier2_langgraph", "course.worlds.graphs:plan_api", 25),
    # the recording doubles' model: its calls logged in the kernel, its requests the grader's
    ("capstone_integrated_loop", "course.worlds.capstone.doubles:script_api", 40)])
def test_the_grader_serves_the_test_cells_fakes_and_leaves_the_demo_cells_their_own(
        monkeypatch, lab, factory, at_least):
    """A solution, graded (unsandboxed: where a fake lives does not depend on the sandbox):
    every fake its graded cells build comes from the hub, full marks, and the demonstration
    cells, which use kernel-side fakes (Lab 1 shows an Inspector on one), run clean."""
    import nbformat

    from course.grading.authoring.build import solution_notebook
    from course.grading.execution import engine
    from course.grading.execution.engine import expected_scores

    from . import ROOT

    built: list[str] = []
    real = fakehub.Hub.create

    def spy(self, factory, args, kwargs):
        built.append(factory)
        return real(self, factory, args, kwargs)

    monkeypatch.setattr(fakehub.Hub, "create", spy)
    source = (ROOT / "source" / lab / f"{lab}.ipynb").read_text(encoding="utf-8")
    sol = nbformat.writes(solution_notebook(nbformat.reads(source, as_version=4))).encode()
    out = engine.grade_job(engine.Job("s", lab, lab, {f"{lab}.ipynb": sol}, source,
                                      sandboxed=False))
    assert out.ok, out.error
    nb = nbformat.reads(out.executed, as_version=4)
    full = sum(c.metadata["nbgrader"].get("points", 0) for c in nb.cells
               if engine.is_test(c))
    assert sum(v or 0 for v in expected_scores(nb, False).values()) == full > 0
    assert factory in built and len(built) >= at_least, built
    errors = [o.get("ename") for c in nb.cells if c.cell_type == "code"
              and not engine.is_test(c) for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == [], errors


def test_a_factory_that_returns_a_tuple_serves_only_its_fake(served):
    from course.clock import FakeClock
    from course.fakes import PromptCache
    from course.worlds import cache_audit

    api, cache, clock = cache_audit.support_api()
    assert isinstance(api, hub.RemoteFake) and isinstance(cache, PromptCache)
    assert isinstance(clock, FakeClock)
    client = api.client()
    rows = [client.messages.create(**cache_audit.healthy(f"probe {i}")).usage for i in range(2)]
    assert (rows[0].cache_read_input_tokens, rows[1].cache_read_input_tokens) == (0, 18_400)
    assert isinstance(served.fakes[0].responder, PromptCache)
    assert cache.log == [], "the kernel's own cache is not the served one"


def test_a_served_fake_on_loopback_is_the_graders_fake(served):
    """``RemoteFake.serve()`` relays a client the kernel does not build (LangGraph's) to the
    grader's fake byte for byte: answers, a dropped connection, a Reply argument, the log."""
    from course.wire import Reply, message, text
    from course.worlds import graphs

    api = graphs.refund_api(drop_at=2)
    assert isinstance(api, hub.RemoteFake)
    body = {"model": graphs.MODEL, "max_tokens": 64,
            "messages": [{"role": "user", "content": graphs.GOAL}]}
    # the headers every API request carries (docs api/getting-started, api/versioning)
    sent = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    with api.serve() as url, httpx2.Client(base_url=url, timeout=10, headers=sent) as http:
        first = http.post("/v1/messages", json=body)
        assert first.status_code == 200 and first.json()["content"][-1]["type"] == "tool_use"
        with pytest.raises(httpx2.TransportError):
            http.post("/v1/messages", json=body)  # the model's drop_at=2: no answer at all
        assert http.post("/v1/messages", json=body).status_code == 200
        bad = http.post("/v1/messages", json={"model": graphs.MODEL, "messages": []})
        assert bad.status_code == 400 and "max_tokens" in bad.text  # the API's own rules
    assert len(served.fakes[0].requests) == 4 and api.requests == served.fakes[0].requests
    queued = graphs.queue_api([Reply.error(429, retry_after=7), message([text("fine")])])
    with queued.serve() as url:
        llm = graphs.chat_model(url)
        with pytest.raises(anthropic.RateLimitError) as err:
            llm.invoke("hi")
        assert err.value.response.headers["retry-after"] == "7"
        assert llm.invoke("hi").text == "fine"
    assert len(served.fakes[1].requests) == 2


def test_a_served_block_leaves_no_connection_to_the_hub_open(served):
    """An SDK keeps its connections alive after a call; the relay ends them with its block,
    so runs past the hub's connection cap each get through."""
    from course.worlds import graphs

    for _ in range(fakehub.MAX_CONNECTIONS + 5):
        api = graphs.queue_api([{"type": "message", "role": "assistant", "model": graphs.MODEL,
                                 "content": [{"type": "text", "text": "ok"}],
                                 "stop_reason": "end_turn", "stop_sequence": None,
                                 "usage": {"input_tokens": 1, "output_tokens": 1}}])
        with api.serve() as url:
            assert graphs.chat_model(url).invoke("hi").text == "ok"


def test_the_capstone_doubles_log_each_model_call_here_and_keep_the_requests_there(served):
    """Under the hub the doubles' model is the grader's fake; each call is still logged in
    the kernel's event log, in order, as its request leaves; and the script running out is
    raised here as the same ScriptExhausted, not turned into a 500 a loop could swallow."""
    from course.worlds import capstone as world

    d = world.doubles([world.answer("a")])
    assert isinstance(d.api.api, hub.RemoteFake)
    client = d.api.client()
    d.log.append(("cache.get", "q", "acme"))
    client.messages.create(**d.guards.agent.request([{"role": "user", "content": "x"}]))
    with pytest.raises(world.ScriptExhausted, match="had 1 replies; the loop asked for reply 2"):
        client.messages.create(**d.guards.agent.request([{"role": "user", "content": "y"}]))
    assert d.log == [("cache.get", "q", "acme"), ("model", 0), ("model", 1)]
    assert [b["messages"][0]["content"] for b in served.fakes[0].requests] == ["x", "y"]
    assert record(requests=d.api.requests)["requests"] == {hub.REF: 0, "field": "requests"}
    with pytest.raises(TypeError, match="as a list"):
        world.doubles(lambda n, body: world.answer("a"))
