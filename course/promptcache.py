"""A prompt cache for the fake API that bills the way the Messages API does.

Wrap any responder in :class:`PromptCache` and every successful reply gets its input-side
usage computed the way the live API computes it:

    cache = PromptCache(Scripted(answer), clock=clock)
    api = FakeAPI(cache)

* The request is rendered in the API's order: ``tools``, then ``system``, then ``messages``,
  block by block. A block carrying ``cache_control`` is a breakpoint; the prefix up to and
  including it is what can be cached.
* Entries are keyed by the model and the exact bytes of the prefix (``cache_control`` itself
  excluded), so any changed byte, a reordered dict, or another model is a different entry.
* A prefix shorter than the model's minimum cacheable length is never cached, and nothing
  says so: the call simply reports ``cache_creation_input_tokens: 0``.
* The longest breakpoint prefix still alive is **read**; every longer breakpoint prefix is
  **written**. What lies after the last breakpoint is uncached input. So
  ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens`` is the whole prompt.
* An entry lives ``ttl`` seconds on the injected clock (5 minutes, or 1 hour for
  ``cache_control: {"type": "ephemeral", "ttl": "1h"}``) and each read renews it.

The counts land in ``usage`` exactly where the API puts them, so the SDK parses them into
``Usage.cache_creation_input_tokens`` and ``Usage.cache_read_input_tokens``; on a streamed call
they arrive in ``message_start``, as live. Token counts come from :mod:`course.tokens`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from . import tokens
from .clock import FakeClock
from .wire import Reply

JSON = dict[str, Any]
Responder = Callable[[JSON], "Reply | JSON"]

#: Minimum cacheable prefix, in tokens, per model (unknown models get ``DEFAULT_MIN_TOKENS``).
MIN_TOKENS: dict[str, int] = {
    "claude-opus-5": 1024,
    "claude-sonnet-5": 1024,
    "claude-haiku-4-5": 2048,
}
DEFAULT_MIN_TOKENS = 1024
TTL_SECONDS: dict[str, float] = {"5m": 300.0, "1h": 3600.0}
MAX_BREAKPOINTS = 4


@dataclass(frozen=True)
class Segment:
    """One rendered block of a request: where it sits, its bytes and its token count."""

    where: str          # e.g. "tools[0]", "system[1]", "messages[2].content[0]"
    data: bytes         # what the cache key sees (cache_control removed, key order kept)
    tokens: int
    ttl: float | None   # set when the block carries cache_control (a breakpoint)


@dataclass(frozen=True)
class Billing:
    """The input side of one call's usage, as the cache decided it."""

    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


def _strip(block: Any) -> Any:
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _ttl(block: Any) -> float | None:
    if not isinstance(block, dict) or not block.get("cache_control"):
        return None
    control = block["cache_control"]
    ttl = control.get("ttl", "5m") if isinstance(control, dict) else "5m"
    return TTL_SECONDS.get(ttl, TTL_SECONDS["5m"])


def _block_tokens(block: Any) -> int:
    if isinstance(block, str):
        return tokens.count(block)
    if isinstance(block, dict) and block.get("type") == "text":
        return tokens.count(block.get("text", ""))
    return tokens.count(block)


def render(body: JSON) -> list[Segment]:
    """The request as the cache sees it: tools, then system, then messages, block by block."""
    out: list[Segment] = []

    def add(where: str, block: Any, role: str | None = None) -> None:
        shown = _strip(block)
        payload = shown if role is None else {"role": role, "block": shown}
        data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
        out.append(Segment(where, data, _block_tokens(shown), _ttl(block)))

    for i, tool in enumerate(body.get("tools") or []):
        add(f"tools[{i}]", tool)
    system = body.get("system")
    if isinstance(system, str) and system:
        add("system", system)
    elif isinstance(system, list):
        for i, block in enumerate(system):
            add(f"system[{i}]", block)
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content")
        if isinstance(content, str):
            add(f"messages[{i}]", content, msg.get("role"))
        else:
            for j, block in enumerate(content or []):
                add(f"messages[{i}].content[{j}]", block, msg.get("role"))
    return out


def _prefixes(model: str, segments: list[Segment]) -> Iterator[tuple[int, str, float]]:
    """(tokens up to and including the breakpoint, cache key, ttl) for every breakpoint."""
    digest = hashlib.sha256(model.encode() + b"\0")
    total = 0
    for seg in segments:
        digest.update(len(seg.data).to_bytes(8, "big") + seg.data)
        total += seg.tokens
        if seg.ttl is not None:
            yield total, digest.hexdigest(), seg.ttl


class TooManyBreakpoints(ValueError):
    """More ``cache_control`` blocks than the API accepts in one request."""


class PromptCache:
    """A responder wrapper: the inner responder writes the reply, this bills its input.

    ``clock`` is any callable returning seconds (a :class:`course.clock.FakeClock` by
    default, so nothing expires until you advance it). ``min_tokens`` overrides the
    per-model minimum for every model. ``log`` keeps one :class:`Billing` per billed call.
    """

    def __init__(self, responder: Responder, *, clock: Callable[[], float] | None = None,
                 min_tokens: int | None = None) -> None:
        self.responder = responder
        self.clock = clock if clock is not None else FakeClock()
        self.min_tokens = min_tokens
        self.entries: dict[str, float] = {}   # cache key -> expiry time
        self.log: list[Billing] = []

    def minimum(self, model: str) -> int:
        """The shortest prefix, in tokens, this cache will store for ``model``."""
        if self.min_tokens is not None:
            return self.min_tokens
        return MIN_TOKENS.get(model, DEFAULT_MIN_TOKENS)

    def bill(self, body: JSON) -> Billing:
        """Look the request up, store what it writes, and return its input-side counts."""
        model = str(body.get("model", ""))
        segments = render(body)
        total = sum(s.tokens for s in segments)
        marks = list(_prefixes(model, segments))
        if len(marks) > MAX_BREAKPOINTS:
            raise TooManyBreakpoints(
                f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
                f"Found {len(marks)}.")
        now = self.clock()
        read = 0
        for upto, key, ttl in reversed(marks):
            if self.entries.get(key, float("-inf")) > now:
                read = upto
                self.entries[key] = now + ttl      # a read renews the entry's lifetime
                break
        written_to = read
        for upto, key, ttl in marks:
            if upto > read and upto >= self.minimum(model):
                self.entries[key] = now + ttl
                written_to = max(written_to, upto)
        billing = Billing(total - written_to, written_to - read, read)
        self.log.append(billing)
        return billing

    def __call__(self, body: JSON) -> Reply | JSON:
        marks = sum(1 for s in render(body) if s.ttl is not None)
        if marks > MAX_BREAKPOINTS:
            return Reply.error(400, f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control "
                                    f"may be provided. Found {marks}.")
        reply = self.responder(body)
        as_reply = reply if isinstance(reply, Reply) else Reply.ok(reply)
        msg = as_reply.body
        if as_reply.status != 200 or not isinstance(msg, dict) or msg.get("type") != "message":
            return reply                            # an error bills nothing and caches nothing
        billing = self.bill(body)
        given = msg.get("usage") or {}
        out_tokens = given.get("output_tokens")
        if out_tokens is None:
            out_tokens = tokens.content_tokens(msg["content"])
        usage = {
            "input_tokens": billing.input_tokens,
            "output_tokens": out_tokens,
            "cache_creation_input_tokens": billing.cache_creation_input_tokens,
            "cache_read_input_tokens": billing.cache_read_input_tokens,
        }
        return Reply(as_reply.status, dict(as_reply.headers), body=dict(msg, usage=usage))
