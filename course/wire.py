"""Build what the Messages API puts on the wire: message bodies, error bodies, SSE streams.

Everything here is plain JSON-shaped data (dicts and lists). The fakes turn a
:class:`Reply` into an ``httpx2.Response``; the SDK then parses it with its own
code, exactly as it parses a live response.
"""

from __future__ import annotations

import datetime
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

#: ``error.type`` per HTTP status, as https://platform.claude.com/docs/en/api/errors lists them
#: (400, 401, 402, 403, 404, 409, 413, 429, 500, 504, 529; the SDK's ``types/shared/
#: error_type.py`` has the same strings). The page adds that ``invalid_request_error`` "may
#: also be used for other 4XX status codes not listed"; it lists no other 5XX, so any other
#: 5XX (503, say) is ``api_error``, the SDK's catch-all server error.
API_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}

_ids = itertools.count(1)


def _next_id(prefix: str) -> str:
    return f"{prefix}_{next(_ids):024d}"


def text(value: str) -> JSON:
    """A text content block."""
    return {"type": "text", "text": value}


def tool_use(name: str, input: JSON, id: str | None = None) -> JSON:
    """A tool_use content block; ``id`` defaults to a fresh ``toolu_…`` id."""
    return {"type": "tool_use", "id": id or _next_id("toolu"), "name": name, "input": input}


def usage(
    input_tokens: int = 0,
    output_tokens: int = 0,
    cache_creation_input_tokens: int = 0,
    cache_read_input_tokens: int = 0,
) -> JSON:
    """A usage object with the four billed token counts."""
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_creation_input_tokens,
        "cache_read_input_tokens": cache_read_input_tokens,
    }


def message(
    content: list[JSON],
    stop_reason: str | None = None,
    *,
    model: str = "claude-opus-5",
    usage: JSON | None = None,
    id: str | None = None,
) -> JSON:
    """An assistant message body as ``POST /v1/messages`` returns it.

    ``stop_reason`` defaults to ``tool_use`` when the content asks for a tool and
    to ``end_turn`` otherwise. Leave ``usage`` as ``None`` to let the fake API
    count it from the request and the reply (see :func:`course.tokens.count`).
    """
    if stop_reason is None:
        asks = any(b.get("type") == "tool_use" for b in content)
        stop_reason = "tool_use" if asks else "end_turn"
    return {
        "id": id or _next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def tool_results(body: JSON, *, newest_only: bool = False) -> list[JSON]:
    """The ``tool_result`` blocks a request body carries, oldest first.

    With ``newest_only`` only those of the last message, when it is a user turn.
    """
    messages = body.get("messages") or []
    if newest_only:
        messages = messages[-1:]
    return [b for m in messages
            if m.get("role") == "user" and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def block_text(content: Any) -> str:
    """The text of a ``content`` field: a string as it is, or its text blocks joined."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def error_type_for(status: int) -> str:
    """The documented ``error.type`` of an HTTP status (see :data:`API_ERROR_TYPES`)."""
    if status in API_ERROR_TYPES:
        return API_ERROR_TYPES[status]
    return "invalid_request_error" if 400 <= status < 500 else "api_error"


def error_body(status: int, message: str, error_type: str | None = None,
               request_id: str | None = None) -> JSON:
    """The API's error envelope: ``{"type": "error", "error": {...}, "request_id": ...}``.

    "The response also includes a ``request_id`` field" (docs/api/errors, "Error shapes";
    SDK ``types/shared/error_response.py``), the same value as the ``request-id`` header.
    Leave ``request_id`` as ``None`` to have :class:`course.fakes.FakeAPI` fill it in from
    the header of the response that carries the body.
    """
    kind = error_type or error_type_for(status)
    body: JSON = {"type": "error", "error": {"type": kind, "message": message}}
    if request_id is not None:
        body["request_id"] = request_id
    return body


#: The fake organisation's limits, per minute: requests, input tokens, output tokens.
RATE_LIMITS = {"requests": 4_000, "input-tokens": 2_000_000, "output-tokens": 400_000}


def rate_limit_headers(requests_made: int, *, status: int = 200,
                       now: datetime.datetime | None = None) -> dict[str, str]:
    """The ``anthropic-ratelimit-*`` headers the API puts on every response.

    Source: https://platform.claude.com/docs/en/api/rate-limits, "Response headers":
    ``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,
    reset}``, the reset "in RFC 3339 format", the ``tokens`` ones showing "the most
    restrictive limit currently in effect" (here the sum of input and output). The fake
    does not meter tokens, so their ``remaining`` equals their ``limit``; ``requests``
    counts down with ``requests_made``, and a 429 shows it at 0. The windows reset on the
    next minute. ``retry-after`` is not among them: the same page documents it for 429s
    and the errors page a 429 without it, so the fake sends it exactly when a reply sets it.
    """
    moment = (now or datetime.datetime.now(datetime.UTC)).replace(microsecond=0)
    reset = (moment + datetime.timedelta(seconds=60 - moment.second)).isoformat()
    reset = reset.replace("+00:00", "Z")
    limits = dict(RATE_LIMITS, tokens=RATE_LIMITS["input-tokens"] + RATE_LIMITS["output-tokens"])
    remaining = dict(limits, requests=0 if status == 429 else max(
        RATE_LIMITS["requests"] - requests_made, 0))
    out: dict[str, str] = {}
    for name in ("requests", "tokens", "input-tokens", "output-tokens"):
        out[f"anthropic-ratelimit-{name}-limit"] = str(limits[name])
        out[f"anthropic-ratelimit-{name}-remaining"] = str(remaining[name])
        out[f"anthropic-ratelimit-{name}-reset"] = reset
    return out


def chunks(value: str, size: int) -> list[str]:
    """Split ``value`` into pieces of about ``size`` characters, at word ends where it can.

    Streams carry text in many small deltas; where the pieces end is the server's choice,
    so a client must join them and never assume one delta per block.
    """
    pieces: list[str] = []
    for word in re.findall(r"\S+\s*|\s+", value):
        if pieces and len(pieces[-1]) + len(word) <= size:
            pieces[-1] += word
        else:
            pieces.extend(word[i:i + size] for i in range(0, len(word), size))
    return pieces or [value]


_DELTA_USAGE = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                "output_tokens", "output_tokens_details", "server_tool_use")


def _block_events(block: JSON) -> tuple[JSON, list[JSON]]:
    """The ``content_block_start`` payload of a block and the deltas that fill it in."""
    kind = block.get("type")
    if kind == "text":
        start = {k: v for k, v in block.items() if k != "citations"}
        deltas = [{"type": "text_delta", "text": piece}
                  for piece in chunks(block.get("text", ""), TEXT_CHUNK)]
        return dict(start, text=""), deltas
    if kind == "tool_use":
        encoded = json.dumps(block.get("input", {}))
        deltas = [{"type": "input_json_delta", "partial_json": ""}]
        deltas += [{"type": "input_json_delta", "partial_json": encoded[i:i + JSON_CHUNK]}
                   for i in range(0, len(encoded), JSON_CHUNK)]
        return dict(block, input={}), deltas
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": piece}
                  for piece in chunks(block.get("thinking", ""), TEXT_CHUNK)
                  if block.get("thinking")]
        deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
        return dict(block, thinking="", signature=""), deltas
    return block, []                     # redacted_thinking and others arrive whole


#: Characters per ``text_delta`` / ``thinking_delta`` and per ``input_json_delta`` chunk.
TEXT_CHUNK = 16
JSON_CHUNK = 12


def sse_events(msg: JSON) -> list[tuple[str, JSON]]:
    """Split a complete message into the server-sent events the API streams for it.

    As the streaming docs (https://docs.claude.com/en/api/messages-streaming) describe it:
    ``message_start`` carries the message with empty content and the input-side usage
    (``output_tokens`` a placeholder); each block is a ``content_block_start``, its deltas
    and a ``content_block_stop``; a ``ping`` follows the first block's start (as in the
    docs' example stream); text arrives in several ``text_delta``s; tool input as
    ``input_json_delta`` chunks of partial JSON, the first one empty (the docs' tool-use
    example); a thinking block as ``thinking_delta``s of its text, if it shows any, then
    one ``signature_delta`` just before its stop (SDK ``types/signature_delta.py``); and
    ``message_delta.usage`` holds the cumulative counts ("The token counts shown in the
    usage field of the message_delta event are cumulative"; SDK
    ``types/message_delta_usage.py``), the final ``output_tokens`` among them.
    """
    final_usage = dict(msg.get("usage") or {})
    start_usage = {k: v for k, v in final_usage.items() if k != "output_tokens_details"}
    start_usage["output_tokens"] = min(1, final_usage.get("output_tokens", 0))
    head = dict(msg, content=[], stop_reason=None, stop_sequence=None, usage=start_usage)
    events: list[tuple[str, JSON]] = [("message_start", {"type": "message_start", "message": head})]
    for index, block in enumerate(msg["content"]):
        start, deltas = _block_events(block)
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": start})
        )
        if index == 0:
            events.append(("ping", {"type": "ping"}))
        for delta in deltas:
            events.append(
                ("content_block_delta", {"type": "content_block_delta", "index": index,
                                         "delta": delta})
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": msg["stop_reason"], "stop_sequence": msg.get("stop_sequence")}
    cumulative = {k: final_usage[k] for k in _DELTA_USAGE if final_usage.get(k) is not None}
    cumulative.setdefault("output_tokens", 0)
    events.append(
        ("message_delta", {"type": "message_delta", "delta": delta, "usage": cumulative})
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def encode_sse(events: list[tuple[str, JSON]]) -> bytes:
    """Serialise events in the ``event: …`` / ``data: …`` framing of text/event-stream."""
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


@dataclass
class Reply:
    """One HTTP answer from the fake API.

    Exactly one of ``body`` (JSON), ``events`` (SSE) or ``drop`` (the connection
    is cut before any response) describes the payload.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: JSON | None = None
    events: list[tuple[str, JSON]] | None = None
    drop: bool = False

    @classmethod
    def ok(cls, msg: JSON, headers: dict[str, str] | None = None) -> Reply:
        return cls(200, dict(headers or {}), body=msg)

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "",
        *,
        error_type: str | None = None,
        retry_after: float | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        """An API error. ``retry_after`` sets the header the SDK reads on 429/529."""
        hdrs = dict(headers or {})
        if retry_after is not None:
            hdrs["retry-after"] = f"{retry_after:g}"
        text_ = message or f"fake {status}"
        return cls(status, hdrs, body=error_body(status, text_, error_type))

    @classmethod
    def dropped(cls) -> Reply:
        """The server closes the connection without answering."""
        return cls(drop=True)

    def to_json(self) -> JSON:
        """The cassette form of this reply."""
        out: JSON = {"status": self.status, "headers": dict(self.headers)}
        if self.drop:
            out["drop"] = True
        elif self.events is not None:
            out["events"] = [{"event": n, "data": d} for n, d in self.events]
        else:
            out["body"] = self.body
        return out

    @classmethod
    def from_json(cls, data: JSON) -> Reply:
        events = data.get("events")
        return cls(
            status=int(data.get("status", 200)),
            headers={str(k): str(v) for k, v in (data.get("headers") or {}).items()},
            body=data.get("body"),
            events=[(e["event"], e["data"]) for e in events] if events is not None else None,
            drop=bool(data.get("drop", False)),
        )
