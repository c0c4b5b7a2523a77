"""The offline Anthropic API: a real ``anthropic.Anthropic`` client over a fake transport.

Student code calls ``client.messages.create`` and ``client.messages.stream`` as it
would online. The SDK builds the request and parses the response with its own
code; only the bytes on the wire come from here. So ``RateLimitError`` with its
``retry-after`` header, ``APIConnectionError`` and streamed usage all behave as
they do live.

    api = FakeAPI(Replay("weather_two_step"))
    client = api.client()
    ...
    api.requests        # every request body sent, in order

    with api.serve() as base_url:   # the same fake over HTTP on loopback, for clients
        ...                         # that build their own SDK client (ChatAnthropic)

A responder is any callable ``body -> Reply | dict``: :class:`Replay` (a cassette),
:class:`Scripted` (computed from the request) or :class:`Queue` (fixed replies in order).
Wrap one in :class:`PromptCache` (``course.promptcache``) to have every reply's input billed
by a prompt cache that writes, reads and expires like the API's.
"""

from __future__ import annotations

import contextlib
import copy
import json
import threading
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic
import httpx2

from . import tokens
from .cassette import ReplayMiss
from .promptcache import PromptCache as PromptCache  # re-exported: a responder wrapper
from .validation import InvalidRequest, check
from .wire import JSON, Reply, encode_sse, error_body, sse_events

Responder = Callable[[JSON], "Reply | JSON"]
Observer = Callable[[JSON, "httpx2.Response | None"], None]

BASE_URL = "https://api.anthropic.com"


class Scripted:
    """Responder that computes each reply from the request with a function.

    Use it where correct student code may legitimately vary, so a fixed recording
    would be too strict. The function gets the request body and may return a
    :class:`Reply` or a bare message dict.
    """

    def __init__(self, fn: Callable[[JSON], Reply | JSON]) -> None:
        self.fn = fn

    def __call__(self, body: JSON) -> Reply | JSON:
        return self.fn(body)


class Queue:
    """Responder that hands out the given replies in order, then fails loudly."""

    def __init__(self, replies: Iterable[Reply | JSON]) -> None:
        self.replies = list(replies)
        self.position = 0

    def __call__(self, body: JSON) -> Reply | JSON:
        if self.position >= len(self.replies):
            raise ReplayMiss(
                f"the fake had {len(self.replies)} replies queued and all were used; "
                f"request {self.position + 1} was not expected"
            )
        reply = self.replies[self.position]
        self.position += 1
        return reply


class FakeAPI:
    """A callable ``httpx2`` transport handler that plays the Messages API.

    * ``validate=True`` rejects malformed conversations with the API's own 400s.
    * ``requests`` keeps every request body, in order (``paths`` the URL paths).
    * Usage left as ``None`` in a reply is filled from :mod:`course.tokens`.
    * :meth:`on_request` lets a viewer (``course.live.Inspector``) watch each request.
    """

    def __init__(self, responder: Responder, *, validate: bool = True) -> None:
        self.responder = responder
        self.validate = validate
        self.requests: list[JSON] = []
        self.paths: list[str] = []
        self.observers: list[Observer] = []
        #: What the fake could not answer while served over HTTP (see :meth:`serve`).
        self.server_errors: list[BaseException] = []

    def on_request(self, observer: Observer) -> Callable[[], None]:
        """Call ``observer(body, response)`` after every request; returns a detach function.

        ``response`` is ``None`` when the fake dropped the connection or ran out of replies.
        """
        self.observers.append(observer)
        return lambda: self.observers.remove(observer)

    def client(self, **kwargs: Any) -> anthropic.Anthropic:
        """A real SDK client wired to this fake (no retries, no environment lookups)."""
        return anthropic.Anthropic(
            api_key="test-key",
            base_url=BASE_URL,
            max_retries=kwargs.pop("max_retries", 0),
            http_client=httpx2.Client(transport=httpx2.MockTransport(self)),
            **kwargs,
        )

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        """Serve this fake over HTTP on 127.0.0.1 (an ephemeral port) while the block runs.

        Yields the base URL (``http://127.0.0.1:PORT``) to give any client: the SDK,
        ``ChatAnthropic(base_url=...)`` or curl. Every request goes through this same fake,
        so cassettes, validation and :attr:`requests` are shared with :meth:`client`.
        A request the fake cannot answer (a replay miss, an exhausted queue) gets a 500
        whose message says why, and the error is kept in :attr:`server_errors`; a dropped
        connection (``Reply.drop``) closes the socket without a response, as online.
        """
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, name="FakeAPI.serve",
                                  kwargs={"poll_interval": 0.005}, daemon=True)
        thread.start()
        host, port = server.server_address[:2]
        try:
            yield f"http://{host}:{port}"
        finally:
            server.shutdown()
            server.server_close()
            thread.join()

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        seen, response = len(self.requests), None
        try:
            response = self._respond(request)
            return response
        finally:
            if len(self.requests) > seen:
                for observe in list(self.observers):
                    observe(self.requests[-1], response)

    def _respond(self, request: httpx2.Request) -> httpx2.Response:
        try:
            body = json.loads(request.content or b"{}")
        except json.JSONDecodeError:
            return _json_response(400, error_body(400, "There was an error parsing the body"))
        self.requests.append(copy.deepcopy(body))
        self.paths.append(request.url.path)
        if self.validate and request.url.path.endswith("/messages"):
            try:
                check(body)
            except InvalidRequest as exc:
                return _json_response(400, error_body(400, str(exc)))
        reply = self.responder(body)
        if not isinstance(reply, Reply):
            reply = Reply.ok(reply)
        return self.render(reply, body, request)

    def render(self, reply: Reply, body: JSON, request: httpx2.Request) -> httpx2.Response:
        """Turn a :class:`Reply` into the response for this request."""
        if reply.drop:
            raise httpx2.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        headers = {"request-id": f"req_fake_{len(self.requests):04d}", **reply.headers}
        if reply.events is not None:
            return _sse_response(reply.status, reply.events, headers)
        payload = reply.body
        if reply.status == 200 and isinstance(payload, dict) and payload.get("type") == "message":
            payload = with_usage(payload, body)
            if body.get("stream"):
                return _sse_response(200, sse_events(payload), headers)
        return _json_response(reply.status, payload, headers)


def _handler_for(api: FakeAPI) -> type[BaseHTTPRequestHandler]:
    """A request handler class that answers every POST/GET through ``api``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two writes

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            content = self.rfile.read(length) if length else b""
            host, port = self.server.server_address[:2]
            request = httpx2.Request(self.command, f"http://{host}:{port}{self.path}",
                                     headers=dict(self.headers.items()), content=content)
            try:
                response = api(request)
            except httpx2.TransportError:  # Reply.drop: hang up without an answer
                self.close_connection = True
                return
            except BaseException as exc:  # a replay miss must reach the client, loudly
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                api.server_errors.append(exc)
                response = _json_response(
                    500, error_body(500, f"the fake could not answer: {type(exc).__name__}: "
                                         f"{exc}"))
            body = response.read()
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection",
                                        "content-encoding"):
                    self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET = _answer

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # a served fake is silent: nbgrader zeroes a cell that writes to stderr

    return Handler


def with_usage(msg: JSON, body: JSON) -> JSON:
    """Fill a message's missing usage from the request and reply sizes."""
    if msg.get("usage") is not None:
        return msg
    out_tokens = tokens.content_tokens(msg["content"])
    return dict(msg, usage={
        "input_tokens": tokens.request_tokens(body),
        "output_tokens": out_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    })


def _json_response(status: int, payload: Any, headers: dict[str, str] | None = None
                   ) -> httpx2.Response:
    return httpx2.Response(status, headers=headers or {}, json=payload)


def _sse_response(status: int, events: list[tuple[str, JSON]], headers: dict[str, str]
                  ) -> httpx2.Response:
    hdrs = {"content-type": "text/event-stream", **headers}
    return httpx2.Response(status, headers=hdrs, content=encode_sse(events))


def fake_client(responder: Responder | Iterable[Reply | JSON], *, validate: bool = True
                ) -> tuple[anthropic.Anthropic, FakeAPI]:
    """Shortcut: a client and its fake. A list of replies becomes a :class:`Queue`."""
    if not callable(responder):
        responder = Queue(responder)
    api = FakeAPI(responder, validate=validate)
    return api.client(), api
