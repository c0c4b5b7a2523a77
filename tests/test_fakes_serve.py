"""FakeAPI.serve(): the same fake over HTTP on loopback, for clients that build their own.

One fake, two doors: a request through the served URL lands in the same request log, is
validated the same way and gets the same replies as one through ``api.client()``. The
network guard (installed for the session by conftest) still refuses everything else.
"""

from __future__ import annotations

import json
import socket
import urllib.request
from urllib.parse import urlsplit

import anthropic
import pytest

from course import netguard
from course.cassette import ReplayMiss
from course.fakes import FakeAPI, Queue
from course.wire import Reply, message, text, tool_use

HELLO = message([text("hello")])


def test_sdk_over_the_served_url_shares_the_request_log():
    api = FakeAPI(Queue([HELLO, HELLO]))
    with api.serve() as url:
        parts = urlsplit(url)
        assert parts.scheme == "http" and parts.hostname == "127.0.0.1" and parts.port
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
        over_http = client.messages.create(model="claude-opus-5", max_tokens=10,
                                           messages=[{"role": "user", "content": "hi"}])
    direct = api.client().messages.create(model="claude-opus-5", max_tokens=10,
                                          messages=[{"role": "user", "content": "again"}])
    assert over_http.content[0].text == direct.content[0].text == "hello"
    assert [r["messages"][0]["content"] for r in api.requests] == ["hi", "again"]
    assert api.paths == ["/v1/messages", "/v1/messages"]
    assert over_http.usage.input_tokens > 0  # usage filled by the fake, as for client()


def test_validation_400_and_retry_after_headers_cross_the_wire():
    api = FakeAPI(Queue([Reply.error(429, retry_after=7), HELLO]))
    with api.serve() as url:
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
        with pytest.raises(anthropic.RateLimitError) as err:
            client.messages.create(model="m", max_tokens=5,
                                   messages=[{"role": "user", "content": "a"}])
        assert err.value.response.headers["retry-after"] == "7"
        bad = [{"role": "user", "content": "a"},
               {"role": "assistant", "content": [tool_use("t", {}, id="toolu_x")]},
               {"role": "user", "content": "no result for toolu_x"}]
        with pytest.raises(anthropic.BadRequestError) as err:
            client.messages.create(model="m", max_tokens=5, messages=bad)
        assert err.value.body["error"]["type"] == "invalid_request_error"


def test_streaming_works_over_http():
    api = FakeAPI(Queue([HELLO]))
    with api.serve() as url:
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
        with client.messages.stream(model="m", max_tokens=5,
                                    messages=[{"role": "user", "content": "a"}]) as s:
            final = s.get_final_message()
    assert final.content[0].text == "hello"


def test_a_miss_is_a_500_that_names_it_and_is_kept():
    api = FakeAPI(Queue([]))
    with api.serve() as url:
        req = urllib.request.Request(f"{url}/v1/messages", method="POST",
                                     data=json.dumps({"model": "m", "max_tokens": 1,
                                                      "messages": [{"role": "user",
                                                                    "content": "a"}]}).encode(),
                                     headers={"x-api-key": "k",
                                              "anthropic-version": "2023-06-01"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=5)
        assert err.value.code == 500
        assert "could not answer: ReplayMiss" in err.value.read().decode()
    assert len(api.server_errors) == 1 and isinstance(api.server_errors[0], ReplayMiss)


def test_a_dropped_reply_is_a_connection_error():
    api = FakeAPI(Queue([Reply.dropped(), HELLO]))
    with api.serve() as url:
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
        with pytest.raises(anthropic.APIConnectionError):
            client.messages.create(model="m", max_tokens=5,
                                   messages=[{"role": "user", "content": "a"}])
        again = client.messages.create(model="m", max_tokens=5,
                                       messages=[{"role": "user", "content": "a"}])
    assert again.content[0].text == "hello"


def test_the_server_is_gone_after_the_block():
    with FakeAPI(Queue([])).serve() as url:
        port = urlsplit(url).port
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_the_network_guard_still_refuses_everything_but_loopback():
    assert netguard.installed()
    with FakeAPI(Queue([HELLO])).serve() as url:
        with pytest.raises(netguard.NetworkBlocked):
            socket.create_connection(("192.0.2.1", urlsplit(url).port), timeout=2)
        client = anthropic.Anthropic(api_key="k", base_url="https://api.anthropic.com",
                                     max_retries=0)
        with pytest.raises(anthropic.APIConnectionError):
            client.messages.create(model="m", max_tokens=5,
                                   messages=[{"role": "user", "content": "a"}])


def test_chat_anthropic_talks_to_the_served_fake():
    pytest.importorskip("langchain_anthropic", reason="the frameworks extra is not installed")
    from langchain_anthropic import ChatAnthropic

    api = FakeAPI(Queue([message([tool_use("lookup", {"id": 7}, id="toolu_7")]), HELLO]))
    with api.serve() as url:
        llm = ChatAnthropic(model="claude-opus-5", base_url=url, api_key="k", max_retries=0,
                            max_tokens=64)

        def lookup(id: int) -> str:  # noqa: A002 - the tool's own parameter name
            """Look a record up."""
            return "found"

        reply = llm.bind_tools([lookup]).invoke("find 7")
        assert reply.tool_calls == [{"name": "lookup", "args": {"id": 7}, "id": "toolu_7",
                                     "type": "tool_call"}]
        assert str(llm.invoke("hi").text) == "hello"
    assert api.requests[0]["tools"][0]["name"] == "lookup"
    assert api.requests[0]["model"] == "claude-opus-5"
