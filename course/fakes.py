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
from urllib.parse import parse_qs

import anthropic
import httpx2
import jiter

from . import models, thinking, tokens
from .cassette import ReplayMiss
from .promptcache import PromptCache as PromptCache  # re-exported: a responder wrapper
from .promptcache import render as cache_render
from .validation import InvalidRequest, check
from .wire import JSON, Reply, encode_sse, error_body, rate_limit_headers, sse_events

Responder = Callable[[JSON], "Reply | JSON"]
Observer = Callable[[JSON, "httpx2.Response | None"], None]

BASE_URL = "https://api.anthropic.com"

#: source: docs.claude.com/en/api/getting-started, "Request size limits": "a maximum request
#: size of 32 MB for standard endpoints, including the Messages API and Token Counting API
#: ... a 413 request_too_large error". Counted as the grader's hub counts it
#: (course/grading/execution/fakehub.py, MAX_BODY), so both refuse the same bodies.
MAX_REQUEST_BYTES = 32_000_000


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
    * ``requests`` keeps every Messages request body, in order (``paths`` the URL paths):
      the model calls. ``counted`` keeps the ``count_tokens`` bodies, which spend no reply.
    * ``GET /v1/models`` and ``GET /v1/models/{id}`` answer from :mod:`course.models`.
    * Before any of that, as the API does: a body over 32 MB is a 413, a request without
      ``x-api-key`` a 401 (any key works), one without ``anthropic-version`` a 400.
    * Usage left as ``None`` in a reply is filled from :mod:`course.tokens`.
    * :meth:`on_request` lets a viewer (``course.live.Inspector``) watch each request.
    """

    def __init__(self, responder: Responder, *, validate: bool = True) -> None:
        self.responder = responder
        self.validate = validate
        self.requests: list[JSON] = []
        self.paths: list[str] = []
        #: Every ``POST /v1/messages/count_tokens`` body, in order (no model call).
        self.counted: list[JSON] = []
        self._answered = 0                 # responses sent, for unique request ids
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
        refused = _refused_at_the_door(request)
        if refused is not None:
            return self.render(refused, {}, request)
        path = request.url.path
        if request.method == "GET" and "/models" in path:
            return self.render(_models_reply(path, request.url.query), {}, request)
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
        if path.endswith("/messages/count_tokens"):
            return self.render(self._count(body), body, request)
        # The log keeps a copy of its own, whatever the responder does with ``body``: parsed
        # again from the same bytes (a third of the time of copy.deepcopy).
        self.requests.append(json.loads(request.content or b"{}"))
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

    def _count(self, body: JSON) -> Reply:
        """``POST /v1/messages/count_tokens``: ``{"input_tokens": N}``, checked as Messages
        checks a request less ``max_tokens`` (docs api/messages/count_tokens; SDK
        ``types/message_count_tokens_params.py``, ``types/message_tokens_count.py``). It spends
        no reply and is logged in :attr:`counted`, not :attr:`requests`: a judge counting
        model calls does not see it. ``N`` is what a Messages call bills as its whole input:
        the prompt cache's rendering when the responder is a :class:`PromptCache`
        (``input_tokens`` plus the cache writes and reads), :func:`course.tokens.request_tokens`
        otherwise."""
        self.counted.append(copy.deepcopy(body))
        if self.validate:
            try:
                check(body, counting=True)
                thinking.check(body, self)
            except InvalidRequest as exc:
                return Reply(exc.status, body=error_body(exc.status, str(exc), exc.error_type))
        if isinstance(self.responder, PromptCache):
            counted = sum(seg.tokens for seg in cache_render(body))
        else:
            counted = tokens.request_tokens(body)
        return Reply.ok({"input_tokens": counted})

    def render(self, reply: Reply, body: JSON, request: httpx2.Request) -> httpx2.Response:
        """Turn a :class:`Reply` into the response for this request."""
        if reply.drop:
            raise httpx2.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
        # Every response carries a request-id and the rate-limit headers (docs api/errors,
        # "Request IDs"; docs api/rate-limits, "Response headers"); a reply's own win. The id
        # is "a globally unique identifier for the request" (docs.claude.com/en/api/
        # getting-started, "Response Headers"): one per response, errors included.
        self._answered += 1
        headers = {"request-id": f"req_fake_{self._answered:04d}",
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


def _refused_at_the_door(request: httpx2.Request) -> Reply | None:
    """The answer the API gives before it reads the body, or ``None`` to go on."""
    if len(request.content or b"") > MAX_REQUEST_BYTES:
        # source: MAX_REQUEST_BYTES (413 request_too_large); wording ours.
        return Reply(413, body=error_body(
            413, f"Request exceeds the maximum allowed number of bytes ({MAX_REQUEST_BYTES:,})."))
    headers = request.headers
    if not headers.get("x-api-key") and not headers.get("authorization"):
        # source: docs.claude.com/en/api/getting-started, "Authentication" ("All requests ...
        # must include an x-api-key header"); docs api/errors (401 authentication_error). The
        # fake has no accounts, so any key (or a bearer token) is accepted. The wording is
        # the one public clients quote for a request without the header.
        return Reply(401, body=error_body(401, "x-api-key header is required"))
    if not headers.get("anthropic-version"):
        # source: platform.claude.com/docs/en/api/versioning ("you must send an
        # anthropic-version request header"); the live wording, as quoted in public clients
        # and gateways that log it (e.g. "400 anthropic-version: header is required").
        return Reply(400, body=error_body(400, "anthropic-version: header is required"))
    return None


def _models_reply(path: str, query: bytes | str) -> Reply:
    """``GET /v1/models`` (paginated) or ``GET /v1/models/{id}``, from :mod:`course.models`.

    Source: the List Models reference (docs.anthropic.com/pt/api/models-list; platform.claude
    .com/docs/en/api/csharp/models/list): "More recently released models are listed first";
    ``before_id`` / ``after_id`` return the page "immediately before / after this object";
    ``limit`` "Defaults to 20. Ranges from 1 to 1000"; ``first_id`` and ``last_id`` name the
    page's ends, ``has_more`` "Indicates if there are more results in the requested page
    direction". Get a Model takes an id or an alias; an unknown one is a 404 (docs
    api/errors). A cursor that names no listed model gives an empty page (the docs are
    silent; the fake stays permissive).
    """
    tail = path.rstrip("/").rsplit("/models", 1)[1].lstrip("/")
    if tail:
        facts = models.get(tail)
        if facts is None:
            # source: docs api/errors (404 not_found_error); live wording ("model: <id>").
            return Reply(404, body=error_body(404, f"model: {tail}"))
        return Reply.ok(models.info(facts))
    params = {k: v[-1] for k, v in parse_qs(
        query.decode() if isinstance(query, bytes) else query).items()}
    raw_limit = params.get("limit", "20")
    limit = int(raw_limit) if raw_limit.isdigit() else 0
    if not 1 <= limit <= 1000:
        # source: as above (1 <= limit <= 1000); wording ours.
        return Reply(400, body=error_body(400, "limit: Input should be between 1 and 1000"))
    ids = [m.id for m in models.listed()]
    if "before_id" in params:
        end = ids.index(params["before_id"]) if params["before_id"] in ids else 0
        page, more = ids[max(0, end - limit):end], end - limit > 0
    else:
        start = ids.index(params["after_id"]) + 1 if params.get("after_id") in ids else (
            len(ids) if "after_id" in params else 0)
        page, more = ids[start:start + limit], start + limit < len(ids)
    return Reply.ok({"data": [models.info(models.MODELS[i]) for i in page], "has_more": more,
                     "first_id": page[0] if page else None,
                     "last_id": page[-1] if page else None})


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
        # at least 1, except for max_tokens 0, which generates nothing (see cut)
        "output_tokens": max(int(body.get("max_tokens") != 0), output_tokens(content)),
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
    limit = body.get("max_tokens")
    if limit == 0 and not isinstance(limit, bool):
        # SDK types/message_create_params.py lines 41-43: "Set to `0` to populate the prompt
        # cache without generating a response": no content, no output tokens. Which
        # stop_reason the API reports then, the docs do not say; the fake says "max_tokens"
        # (SDK types/message.py: "we exceeded the requested `max_tokens`").
        usage = dict(msg["usage"], output_tokens=0) if isinstance(msg.get("usage"),
                                                                 dict) else msg.get("usage")
        return dict(msg, content=[], stop_reason="max_tokens", stop_sequence=None, usage=usage)
    sequences = body.get("stop_sequences")
    found = None
    if isinstance(sequences, list) and all(isinstance(s, str) and s for s in sequences):
        content, found = _stop_at(content, sequences)
    over = window = False
    if isinstance(limit, int) and limit > 0:
        room = _window_room(body)
        if room is not None and room < limit:
            # The context window holds the prompt and the response (course.validation,
            # _check_window): output that would not fit stops there, with the SDK's stop
            # reason for it (types/message.py: "model_context_window_exceeded": "we exceeded
            # the model's context window").
            content, window = _within(content, room)
        if not window:
            content, over = _within(content, limit)
    if not over and not window and found is None:
        return msg
    out = dict(msg, content=content)
    if window:
        out.update(stop_reason="model_context_window_exceeded", stop_sequence=None)
    elif over:
        out.update(stop_reason="max_tokens", stop_sequence=None)
    else:
        out.update(stop_reason="stop_sequence", stop_sequence=found)
    if isinstance(msg.get("usage"), dict) and msg["usage"].get("output_tokens") is not None:
        out["usage"] = dict(msg["usage"], output_tokens=output_tokens(content))
    return out


def _window_room(body: JSON) -> int | None:
    """Output tokens left in the model's context window after the prompt, or ``None`` for a
    model :mod:`course.models` has no row for."""
    facts = models.get(str(body.get("model", "")))
    if facts is None:
        return None
    return max(0, facts.context_window - tokens.request_tokens(body))


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
