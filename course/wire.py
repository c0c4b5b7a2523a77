"""Build what the Messages API puts on the wire: message bodies, error bodies, SSE streams.

Everything here is plain JSON-shaped data (dicts and lists). The fakes turn a
:class:`Reply` into an ``httpx2.Response``; the SDK then parses it with its own
code, exactly as it parses a live response.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

API_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
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


def error_body(status: int, message: str, error_type: str | None = None) -> JSON:
    """The API's error envelope: ``{"type": "error", "error": {...}}``."""
    kind = error_type or API_ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def sse_events(msg: JSON) -> list[tuple[str, JSON]]:
    """Split a complete message into the server-sent events the API streams for it.

    As on the live API, ``message_start`` carries the input-side usage with a
    placeholder output count, and the real ``output_tokens`` arrive only in
    ``message_delta`` at the end.
    """
    final_usage = dict(msg.get("usage") or {})
    start_usage = dict(final_usage, output_tokens=min(1, final_usage.get("output_tokens", 0)))
    head = dict(msg, content=[], stop_reason=None, stop_sequence=None, usage=start_usage)
    events: list[tuple[str, JSON]] = [("message_start", {"type": "message_start", "message": head})]
    for index, block in enumerate(msg["content"]):
        if block["type"] == "text":
            start, deltas = dict(block, text=""), [{"type": "text_delta", "text": block["text"]}]
        elif block["type"] == "tool_use":
            start = dict(block, input={})
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        else:
            start, deltas = block, []
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": start})
        )
        for delta in deltas:
            events.append(
                ("content_block_delta", {"type": "content_block_delta", "index": index,
                                         "delta": delta})
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": msg["stop_reason"], "stop_sequence": msg.get("stop_sequence")}
    events.append(
        ("message_delta", {"type": "message_delta", "delta": delta,
                           "usage": {"output_tokens": final_usage.get("output_tokens", 0)}})
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
