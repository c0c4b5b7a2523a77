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
import socketserver
import threading
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anthropic
import httpx2
import jiter

from . import thinking, tokens
from .cassette import ReplayMiss
from .promptcache import PromptCache as PromptCache  # re-exported: a responder wrapper
from .validation import InvalidRequest, check
from .wire import JSON, Reply, encode_sse, error_body, rate_limit_headers, sse_events

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

    def client(self, *, on_send: Callable[[], None] | None = None,
               **kwargs: Any) -> anthropic.Anthropic:
        """A real SDK client wired to this fake (no retries, no environment lookups);
        ``on_send`` is called as each request leaves the client."""
        hooks = {"request": [lambda request: on_send()]} if on_send is not None else {}
        return anthropic.Anthropic(
            api_key="test-key",
            base_url=BASE_URL,
            max_retries=kwargs.pop("max_retries", 0),
            http_client=httpx2.Client(transport=httpx2.MockTransport(self), event_hooks=hooks),
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
        with serving(server, "FakeAPI.serve") as base_url:
            yield base_url

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
            # source: docs api/errors (400 invalid_request_error for "the format or content
            # of your request"); the docs quote no message for unparseable JSON: ours.
            return self.render(Reply(400, body=error_body(
                400, "There was an error parsing the body")), {}, request)
        if not isinstance(body, dict):  # JSON, but no object: a 400, never a crash here
            return self.render(Reply(400, body=error_body(
                400, "Input should be a valid dictionary or object to extract fields from")),
                {}, request)
        self.requests.append(copy.deepcopy(body))
        self.paths.append(request.url.path)
        if self.validate and request.url.path.endswith("/messages"):
            try:
                check(body)
                thinking.check(body, self)
            except InvalidRequest as exc:  # a 400, or the 404 of an unknown model
                return self.render(Reply(exc.status, body=error_body(
                    exc.status, str(exc), exc.error_type)), body, request)
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
        # Every response carries a request-id and the rate-limit headers (docs api/errors,
        # "Request IDs"; docs api/rate-limits, "Response headers"); a reply's own win.
        headers = {"request-id": f"req_fake_{len(self.requests):04d}",
                   **rate_limit_headers(len(self.requests), status=reply.status),
                   **reply.headers}
        if reply.events is not None:
            return _sse_response(reply.status, reply.events, headers)
        payload = reply.body
        if reply.status == 200 and isinstance(payload, dict) and payload.get("type") == "message":
            payload = with_usage(follow_request(payload, body), body)
            thinking.remember(self, payload)
            if body.get("stream"):
                return _sse_response(200, sse_events(payload), headers)
        return _json_response(reply.status, payload, headers)


@contextlib.contextmanager
def serving(server: socketserver.BaseServer, name: str, path: str = "") -> Iterator[str]:
    """Run ``server`` (bound on 127.0.0.1) in a thread while the block runs; yields its base
    URL with ``path`` after the port. A served fake and the grader's relay both serve so."""
    thread = threading.Thread(target=server.serve_forever, name=name,
                              kwargs={"poll_interval": 0.005}, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host}:{port}{path}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def answer_http(handler: BaseHTTPRequestHandler, api: FakeAPI, url: str,
                content: bytes) -> None:
    """Answer the request ``handler`` has read (its body is ``content``) through ``api``, as
    the request for ``url``: a served fake and the grader's hub of fakes both answer so."""
    request = httpx2.Request(handler.command, url, headers=dict(handler.headers.items()),
                             content=content)
    try:
        response = api(request)
    except httpx2.TransportError:  # Reply.drop: hang up without an answer
        handler.close_connection = True
        return
    except BaseException as exc:  # a replay miss must reach the client, loudly
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        api.server_errors.append(exc)
        response = _json_response(
            500, error_body(500, f"the fake could not answer: {type(exc).__name__}: {exc}"),
            {"x-course-fake-raised": type(exc).__name__})  # course.hub.RAISED_HEADER
    send_http(handler, response.status_code, response.read(), response.headers.items())


def send_http(handler: BaseHTTPRequestHandler, status: int, body: bytes,
              headers: Iterable[tuple[str, str]] = ()) -> None:
    """Write one whole response (status, headers, a sized body) through ``handler``."""
    handler.send_response(status)
    for name, value in headers:
        if name.lower() not in ("content-length", "transfer-encoding", "connection",
                                "content-encoding"):
            handler.send_header(name, value)
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _handler_for(api: FakeAPI) -> type[BaseHTTPRequestHandler]:
    """A request handler class that answers every POST/GET through ``api``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two writes

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            content = self.rfile.read(length) if length else b""
            host, port = self.server.server_address[:2]
            answer_http(self, api, f"http://{host}:{port}{self.path}", content)

        do_POST = do_GET = _answer

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # a served fake is silent: nbgrader zeroes a cell that writes to stderr

    return Handler


def with_usage(msg: JSON, body: JSON) -> JSON:
    """Fill a message's missing usage from the request and reply sizes.

    A usage a reply already carries is what the API billed and is kept as it is (thinking
    included, where the reply's author wrote it so). Counted here, ``output_tokens``
    includes the reasoning of its thinking blocks, reported again in
    ``output_tokens_details.thinking_tokens`` (SDK ``types/output_tokens_details.py``:
    thinking tokens are part of ``output_tokens``, the billed total).
    """
    given = msg.get("usage")
    if isinstance(given, dict) and None not in (given.get("input_tokens"),
                                                given.get("output_tokens")):
        return msg
    given = dict(given or {})
    content = msg.get("content") or []
    reasoning = sum(thinking.reasoning_tokens(b) for b in content
                    if isinstance(b, dict) and b.get("type") == "thinking")
    filled: JSON = {
        "input_tokens": tokens.request_tokens(body),
        "output_tokens": max(1, output_tokens(content)),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    filled.update({k: v for k, v in given.items() if v is not None})
    if reasoning and given.get("output_tokens") is None:
        filled["output_tokens_details"] = {"thinking_tokens": reasoning}
    return dict(msg, usage=filled)


# -- the reply follows the request -------------------------------------------------------


def block_tokens(block: JSON) -> int:
    """Output tokens one content block costs: a thinking block its reasoning, others as
    :func:`course.tokens.content_tokens` counts them."""
    if block.get("type") == "thinking":
        return thinking.reasoning_tokens(block)
    return tokens.content_tokens([block])


def output_tokens(content: list[JSON]) -> int:
    """Output tokens of a reply's content, thinking included."""
    return sum(block_tokens(b) for b in content if isinstance(b, dict))


def follow_request(msg: JSON, body: JSON) -> JSON:
    """The reply as the API sends it for ``body``: a copy of ``msg`` that

    * names the requested model (SDK ``types/message.py``: ``model`` is the model that
      completed the prompt, so a request for claude-sonnet-5 is answered as claude-sonnet-5);
    * begins with a thinking block when the request thinks (:func:`add_thinking`);
    * stops at the first of ``stop_sequences`` and within ``max_tokens`` (:func:`cut`).
    """
    out = copy.deepcopy(msg)
    if isinstance(body.get("model"), str):
        out["model"] = body["model"]
    return cut(add_thinking(out, body), body)


def add_thinking(msg: JSON, body: JSON) -> JSON:
    """Put one thinking block first when the request thinks (:func:`course.thinking.display_for`).

    Left as they are: replies that already carry thinking blocks, replies with no content
    (an empty answer or a refusal with no blocks) and refusals, whose content the safety
    classifiers decide. Adaptive thinking is the model's choice (thinking-troubleshooting:
    "adaptive"): the fake skips it when ``max_tokens`` leaves less than twice its reasoning
    of room, so a tiny ``max_tokens`` still gets text back.
    """
    display = thinking.display_for(body)
    content = msg.get("content") or []
    if (display is None or not content or msg.get("stop_reason") == "refusal"
            or any(thinking.is_thinking(b) for b in content)):
        return msg
    limit = body.get("max_tokens")
    if isinstance(limit, int) and tokens.count(thinking.REASONING) * 2 > limit:
        return msg
    block = thinking.make_block(display, f"{msg.get('id', '')}:{len(content)}")
    return dict(msg, content=[block, *content])


def _stop_at(content: list[JSON], sequences: list[str]) -> tuple[list[JSON], str | None]:
    """Content up to the first stop sequence in a text block, and the sequence found."""
    for i, b in enumerate(content):
        if not (isinstance(b, dict) and b.get("type") == "text"):
            continue
        found = [(b["text"].find(s), n, s) for n, s in enumerate(sequences) if s in b["text"]]
        if found:
            at, _, seq = min(found)
            head = b["text"][:at]
            return content[:i] + ([dict(b, text=head)] if head else []), seq
    return content, None


def _partial_input(name: str, value: JSON, room: int) -> JSON:
    """What a tool call's input parses to when only ``room`` tokens of it were written."""
    encoded = json.dumps(value, separators=(",", ":"))
    written = encoded[:max(0, room - tokens.count(name)) * tokens.CHARS_PER_TOKEN]
    try:
        parsed = jiter.from_json(written.encode(), partial_mode=True) if written else {}
    except ValueError:
        parsed = {}
    return parsed if isinstance(parsed, dict) else {}


def _within(content: list[JSON], limit: int) -> tuple[list[JSON], bool]:
    """Content cut to ``limit`` output tokens, and whether anything was cut."""
    out: list[JSON] = []
    spent = 0
    for b in content:
        cost = block_tokens(b) if isinstance(b, dict) else 0
        if spent + cost <= limit:
            out.append(b)
            spent += cost
            continue
        room = limit - spent
        if room > 0 and b.get("type") == "text":
            out.append(dict(b, text=b["text"][:room * tokens.CHARS_PER_TOKEN]))
        elif room > 0 and b.get("type") == "tool_use":
            out.append(dict(b, input=_partial_input(b.get("name", ""), b.get("input", {}),
                                                    room)))
        return out, True
    return out, False


def cut(msg: JSON, body: JSON) -> JSON:
    """Apply the request's ``stop_sequences`` and ``max_tokens`` to a reply.

    * SDK ``types/message_create_params.py``: when the model meets one of the
      ``stop_sequences``, ``stop_reason`` is ``"stop_sequence"`` and ``stop_sequence`` holds
      the sequence. The text ends before it and nothing after it is generated.
    * Opus 5 migration guide: ``max_tokens`` is a hard limit on the whole output, thinking
      plus text. A longer reply is cut there with ``stop_reason: "max_tokens"``; a
      ``tool_use`` block being written at the cut is returned incomplete, as the tool-use
      docs warn ("the truncated response contains an incomplete tool use block";
      agents-and-tools/tool-use/implement-tool-use, "Handling the max_tokens stop reason"),
      with only the part of its input that was written (parsed as the SDK parses a stream:
      jiter, partial mode). The docs do not say what that input holds.

    A cut reply's usage counts what is left when the usage was the fake's to count, and
    ``output_tokens`` drops to that figure when the reply came with one.
    """
    content = list(msg.get("content") or [])
    sequences = body.get("stop_sequences")
    found = None
    if isinstance(sequences, list) and all(isinstance(s, str) and s for s in sequences):
        content, found = _stop_at(content, sequences)
    limit = body.get("max_tokens")
    over = False
    if isinstance(limit, int) and limit > 0:
        content, over = _within(content, limit)
    if not over and found is None:
        return msg
    out = dict(msg, content=content)
    if over:
        out.update(stop_reason="max_tokens", stop_sequence=None)
    else:
        out.update(stop_reason="stop_sequence", stop_sequence=found)
    if isinstance(msg.get("usage"), dict) and msg["usage"].get("output_tokens") is not None:
        out["usage"] = dict(msg["usage"], output_tokens=output_tokens(content))
    return out


def _json_response(status: int, payload: Any, headers: dict[str, str] | None = None
                   ) -> httpx2.Response:
    """A JSON response. An error envelope gets the ``request_id`` of its ``request-id``
    header when it has none (docs api/errors, "Error shapes": the body's ``request_id`` and
    the header are one value)."""
    headers = headers or {}
    if (isinstance(payload, dict) and payload.get("type") == "error"
            and payload.get("request_id") is None and "request-id" in headers):
        payload = dict(payload, request_id=headers["request-id"])
    return httpx2.Response(status, headers=headers, json=payload)


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
