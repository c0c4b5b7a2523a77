"""The support-desk world of Lab 7: request builders, healthy and broken, over a fake API that
caches prompts like the real one.

A *builder* takes a question and returns the keyword arguments of one
``client.messages.create`` call. The healthy builder has two cache breakpoints: the stable
prefix (tools and the handbook, 18,400 tokens) and the documents retrieved for the question
(6,100 tokens), followed by a 210-token instruction that is never cached. The broken builders
each carry one of the classic invalidators. Nothing here computes a hit rate, a price or a
diff: that is the student's audit.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from typing import Any

from .. import tokens
from ..clock import FakeClock
from ..fakes import FakeAPI, PromptCache, Queue, Scripted
from ..hub import served  # graded cells' fakes live in the grader (course.hub)
from ..wire import message, text

JSON = dict[str, Any]
Builder = Callable[[str], JSON]

MODEL = "claude-opus-5"
PREFIX_TOKENS = 18_400   # tools + system: the part every call shares
DOCS_TOKENS = 6_100      # documents retrieved for the question, cached at a second breakpoint
TAIL_TOKENS = 210        # the instruction after the last breakpoint: never cached
OUTPUT_TOKENS = 400
SECONDS_PER_CALL = 2.0   # the fake clock moves this much during every reply

# The chapter's two columns (per call, claude-opus-5): (uncached_in, cache_write, cache_read, out)
HEALTHY_ROW = (210, 6_100, 18_400, 400)
BROKEN_ROW = (210 + 18_400, 6_100, 0, 400)   # the 18,400 move to full-price input
TABLE_BUG_ROW = (210, 6_100, 0, 400)         # ...or vanish, in the table that gets it wrong

HEADER = "You are the support agent for Acme Cloud. Answer from the handbook and the documents."
STAMP = "2026-07-30T09:15:00Z"   # the width of a timestamp, for padding the stamped prompt

_BREAK = {"type": "ephemeral"}


def _filler(kind: str, n_chars: int) -> str:
    """Deterministic readable text of exactly ``n_chars`` characters."""
    lines, size = [], 0
    for i in itertools.count(1):
        lines.append(f"{kind} {i:04d}: refunds within 30 days; escalate outages; never share keys.")
        size += len(lines[-1]) + 1
        if size >= n_chars:
            break
    return "\n".join(lines)[:n_chars]


def _pad_to(prefix: str, n_tokens: int) -> str:
    """``prefix`` followed by filler, exactly ``n_tokens`` tokens long (4 chars per token)."""
    want = n_tokens * tokens.CHARS_PER_TOKEN
    if len(prefix) > want:
        raise ValueError(f"{len(prefix)} chars do not fit in {n_tokens} tokens")
    return prefix + _filler("Rule", want - len(prefix))


def _tool(name: str, description: str, props: dict[str, str]) -> JSON:
    return {
        "name": name,
        "description": description,
        "input_schema": {
            "type": "object",
            "properties": {p: {"type": "string", "description": d} for p, d in props.items()},
            "required": list(props),
        },
    }


TOOLS: list[JSON] = [
    _tool("search_docs", "Search the handbook and return matching passages.",
          {"query": "what to look for"}),
    _tool("get_account", "Look up one customer account.",
          {"account_id": "e.g. 'acme-42'", "fields": "comma-separated fields",
           "region": "eu or us"}),
]


def _tools_tokens(tools: list[JSON]) -> int:
    return sum(tokens.count(t) for t in tools)


def _system(header: str, total_prefix: int = PREFIX_TOKENS) -> list[JSON]:
    """Header block + handbook block (the first breakpoint), sized so tools + system is exact."""
    handbook_tokens = total_prefix - _tools_tokens(TOOLS) - tokens.count(header)
    return [text(header), dict(text(_pad_to("Handbook.\n", handbook_tokens)),
                               cache_control=_BREAK)]


def _user(question: str, docs_tokens: int = DOCS_TOKENS) -> JSON:
    docs = _pad_to(f"Documents retrieved for: {question}\n", docs_tokens)
    tail = _pad_to(f"Answer the question in three sentences: {question}\n", TAIL_TOKENS)
    # the probe appears in both blocks, so a diff of two probes sees it on exactly those lines
    return {"role": "user", "content": [dict(text(docs), cache_control=_BREAK), text(tail)]}


_HEALTHY_SYSTEM = _system(HEADER)


def healthy(question: str) -> JSON:
    """Two breakpoints, nothing volatile before them: warm calls read 18,400 and write 6,100."""
    return {"model": MODEL, "max_tokens": 1024, "tools": TOOLS, "system": _HEALTHY_SYSTEM,
            "messages": [_user(question)]}


def stamped(start: str = "2026-07-30T09:15:00") -> Builder:
    """A builder that writes the current time into the first line of the system prompt.

    Its wall clock moves one second every time the builder reads it, as ``datetime.now()``
    does between two requests, so no two calls render the same prompt.
    """
    ticks = itertools.count(1)
    t0 = dt.datetime.fromisoformat(start)

    def build(question: str) -> JSON:
        now = (t0 + dt.timedelta(seconds=next(ticks))).strftime("%Y-%m-%dT%H:%M:%SZ")
        system = _system(f"{HEADER} Current time: {STAMP}.")   # sized for the stamp's width
        system[0] = text(f"{HEADER} Current time: {now}.")
        return {"model": MODEL, "max_tokens": 1024, "tools": TOOLS, "system": system,
                "messages": [_user(question)]}

    return build


def shuffled() -> Builder:
    """A builder whose tool schema comes out with its properties in a new order on each call.

    It stands in for a schema assembled from a set or merged from several dicts: the content
    is the same, the bytes are not.
    """
    orders = itertools.cycle(list(itertools.permutations(range(3))))

    def build(question: str) -> JSON:
        order = next(orders)
        tool = TOOLS[1]
        props = list(tool["input_schema"]["properties"].items())
        moved = dict(tool, input_schema=dict(tool["input_schema"],
                                             properties={props[i][0]: props[i][1] for i in order}))
        return {"model": MODEL, "max_tokens": 1024, "tools": [TOOLS[0], moved],
                "system": _HEALTHY_SYSTEM, "messages": [_user(question)]}

    return build


ROUTED_MODELS = ("claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5")


def model_switch() -> Builder:
    """A builder behind a router that sends each call to the next model in turn."""
    models = itertools.cycle(ROUTED_MODELS)

    def build(question: str) -> JSON:
        return dict(healthy(question), model=next(models))

    return build


#: Below claude-opus-5's 512-token minimum cacheable prompt (source: the prompt-caching page,
#: "Cache limitations"; see ``course.promptcache.MIN_TOKENS``).
SHORT_PREFIX_TOKENS = 400


def too_short(question: str) -> JSON:
    """One breakpoint after a 400-token system prompt: below claude-opus-5's 512-token
    minimum, so nothing is ever cached and nothing raises."""
    system = [dict(text(_pad_to(HEADER + "\n", SHORT_PREFIX_TOKENS)), cache_control=_BREAK)]
    return {"model": MODEL, "max_tokens": 1024, "system": system,
            "messages": [{"role": "user", "content": f"Answer in three sentences: {question}"}]}


EARLY_CACHED_TOKENS = 2_000
LATE_UNCACHED_TOKENS = 6_000


def early_breakpoint(question: str) -> JSON:
    """The breakpoint sits after a 2,000-token header; 6,000 stable tokens follow it uncached."""
    header = dict(text(_pad_to(HEADER + "\n", EARLY_CACHED_TOKENS)), cache_control=_BREAK)
    handbook = text(_pad_to("Handbook.\n", LATE_UNCACHED_TOKENS))
    return {"model": MODEL, "max_tokens": 1024, "system": [header, handbook],
            "messages": [{"role": "user", "content": f"Answer in three sentences: {question}"}]}


def _answer(clock: FakeClock) -> Callable[[JSON], JSON]:
    def respond(body: JSON) -> JSON:
        clock.advance(SECONDS_PER_CALL)
        usage = {"input_tokens": 0, "output_tokens": OUTPUT_TOKENS}
        return message([text("Rotate the key under Settings > API keys.")],
                       model=body["model"], usage=usage)

    return respond


@served(part=0)  # graded cells never touch its cache or clock
def support_api(clock: FakeClock | None = None) -> tuple[FakeAPI, PromptCache, FakeClock]:
    """A fake API with a prompt cache on ``clock``; every reply takes 2 s and writes 400 tokens.

    Returns ``(api, cache, clock)``: ``api.client()`` is the client to audit with,
    ``cache.log`` the input billing of each call, ``clock.advance`` lets entries expire.
    """
    clock = clock if clock is not None else FakeClock(dt.datetime(2026, 7, 30, 9, 15,
                                                                  tzinfo=dt.UTC).timestamp())
    cache = PromptCache(Scripted(_answer(clock)), clock=clock)
    return FakeAPI(cache), cache, clock


def builders() -> dict[str, Builder]:
    """Fresh instances of every builder, by name (the stateful ones start from the top)."""
    return {"healthy": healthy, "stamped": stamped(), "shuffled": shuffled(),
            "model_switch": model_switch(), "too_short": too_short,
            "early_breakpoint": early_breakpoint}


@served
def billed_as(rows: list[tuple[int, int, int]]) -> FakeAPI:
    """A fake API whose k-th reply reports ``rows[k]`` as (uncached_in, cache_write, cache_read).

    No cache runs behind it: use it to put an exact ratio in front of an audit.
    """
    replies = [message([text("ok")], usage={"input_tokens": i, "output_tokens": OUTPUT_TOKENS,
                                             "cache_creation_input_tokens": w,
                                             "cache_read_input_tokens": r})
               for i, w, r in rows]
    return FakeAPI(Queue(replies))
