"""The ticket-desk world of Lab 10: an agent with three model call sites (one retried, one
hidden inside a tool, one streamed), the five-turn trace of an integrated run, and real SDK
usage objects to record.

The call sites are plain functions of a client; the notebook decorates them. Nothing here
prices a token or keeps a ledger: that is the student's ``Ledger``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
from anthropic.lib.streaming import MessageStreamManager
from anthropic.types import Message

from ..fakes import FakeAPI, Queue, Scripted
from ..hub import served  # graded cells' fakes live in the grader (course.hub)
from ..wire import message, text
from .budget import WORKED_CALL, sdk_usage, usage_body

__all__ = ["WORKED_CALL", "sdk_usage"]   # the $0.82 call of Lab 3, priced again here

JSON = dict[str, Any]
OPUS = "claude-opus-5"
SONNET = "claude-sonnet-5"

# The integrated run's five turns on claude-opus-5: (uncached_in, cache_write, cache_read, out)
TRACE_TURNS: list[tuple[int, int, int, int]] = [
    (20, 6_100, 0, 180),
    (0, 1_300, 6_100, 150),
    (0, 900, 7_400, 120),
    (0, 700, 8_300, 260),
    (40, 400, 9_000, 300),
]


# A team's month on claude-opus-5, in tokens: the Explain question's ledger. The question
# quotes the shares and the hit rate the notebook prints from these counts, so they agree.
MONTH_TOKENS: dict[str, int] = {
    "in": 2_040_000_000,        # uncached input
    "cache_write": 38_400_000,
    "cache_read": 72_000_000,
    "out": 60_960_000,
}


def trace_replies() -> list[Message]:
    """The five replies of the integrated run, as the real SDK parses them."""
    bills = [usage_body(i, o, w, r) for i, w, r, o in TRACE_TURNS]
    api = FakeAPI(Queue([message([text(f"turn {k}")], usage=b) for k, b in enumerate(bills, 1)]))
    client = api.client()
    return [client.messages.create(model=OPUS, max_tokens=512,
                                   messages=[{"role": "user", "content": f"turn {k}"}])
            for k in range(1, len(bills) + 1)]


# -- the ticket agent ----------------------------------------------------------------------

GOAL = "Customer acme-42 says their API key stopped working after rotation. Help them."
PLAN_SYSTEM = "Plan the steps to resolve the ticket. List the tools to call."
SUMMARY_SYSTEM = "Summarise this tool output in five lines for the support agent."
ANSWER_SYSTEM = "Write the reply to the customer from the plan and the summaries."
PLAN_FULL_TOKENS = 1_024        # a plan needs this much room; less and it stops at max_tokens

# usage per call site: (uncached_in, cache_write, cache_read, out)
PLAN_TRUNCATED = (1_200, 6_100, 0, 512)       # out = the max_tokens it was cut at
PLAN_OK = (1_200, 0, 6_100, 700)
SUMMARY = (7_000, 0, 0, 400)                  # per summarised tool output, on sonnet
ANSWER = (900, 0, 6_100, 1_200)
TOOL_OUTPUTS = ("search_docs: 38 passages about key rotation ...",
                "get_account: acme-42, plan Team, key rotated 2026-07-29 ...")


def _respond(body: JSON) -> JSON:
    system = body.get("system")
    if system == PLAN_SYSTEM:
        if body["max_tokens"] < PLAN_FULL_TOKENS:
            i, w, r, _ = PLAN_TRUNCATED
            return message([text("1. search_docs 2. get_account 3. ")], "max_tokens",
                           model=body["model"], usage=usage_body(i, body["max_tokens"], w, r))
        i, w, r, o = PLAN_OK
        return message([text("1. search_docs(key rotation) 2. get_account(acme-42) 3. reply")],
                       model=body["model"], usage=usage_body(i, o, w, r))
    if system == SUMMARY_SYSTEM:
        i, w, r, o = SUMMARY
        return message([text("Old key valid 24 h after rotation; acme-42 rotated yesterday.")],
                       model=body["model"], usage=usage_body(i, o, w, r))
    if system == ANSWER_SYSTEM:
        i, w, r, o = ANSWER
        return message([text("Your old key expired 24 hours after rotation. "
                             "Use the new key from Settings > API keys.")],
                       model=body["model"], usage=usage_body(i, o, w, r))
    raise ValueError(f"the ticket fake does not know this system prompt: {system!r}")


@served
def ticket_api() -> FakeAPI:
    """The fake behind the ticket agent: each call site's reply and usage is fixed above."""
    return FakeAPI(Scripted(_respond))


def plan(client: anthropic.Anthropic, goal: str, max_tokens: int = 512) -> Message:
    """Call site 1 (claude-opus-5): plan the ticket. 512 tokens are too few: see retry."""
    return client.messages.create(model=OPUS, max_tokens=max_tokens, system=PLAN_SYSTEM,
                                  messages=[{"role": "user", "content": goal}])


def summarize(client: anthropic.Anthropic, tool_output: str) -> Message:
    """Call site 2 (claude-sonnet-5): called from inside a tool, once per tool output."""
    return client.messages.create(model=SONNET, max_tokens=512, system=SUMMARY_SYSTEM,
                                  messages=[{"role": "user", "content": tool_output}])


def answer(client: anthropic.Anthropic, goal: str, notes: str) -> MessageStreamManager:
    """Call site 3 (claude-opus-5): the customer reply, streamed. Returns the SDK's stream
    manager: use it as ``with answer(...) as stream:``."""
    return client.messages.stream(model=OPUS, max_tokens=2_048, system=ANSWER_SYSTEM,
                                  messages=[{"role": "user", "content": f"{goal}\n\n{notes}"}])


def retry_truncated(fn: Callable[..., Message], attempts: int = 3) -> Callable[..., Message]:
    """Wrap a call site so a reply cut off at ``max_tokens`` is retried with twice the room.

    Every attempt is a billed API call: the truncated reply's tokens were generated and paid
    for even though the harness throws the reply away.
    """

    def retried(client: anthropic.Anthropic, goal: str) -> Message:
        room = 512
        for _ in range(attempts):
            reply = fn(client, goal, max_tokens=room)
            if reply.stop_reason != "max_tokens":
                return reply
            room *= 2
        raise RuntimeError(f"still truncated after {attempts} attempts at up to {room // 2} "
                           "tokens")

    retried.__name__ = getattr(fn, "__name__", "retried")
    return retried


def run_ticket(sites: dict[str, Callable[..., Any]], *, client: anthropic.Anthropic) -> str:
    """Run the ticket through ``sites["plan"]``, ``sites["summarize"]`` (once per tool
    output) and ``sites["answer"]``; return the customer reply's text.

    ``sites["answer"]`` may return a finished ``Message`` or the SDK's stream manager: an
    undecorated streaming site still runs, so a missing decorator shows up only in the books.
    """
    sites["plan"](client, GOAL)
    notes = ["".join(b.text for b in sites["summarize"](client, out).content if b.type == "text")
             for out in TOOL_OUTPUTS]
    final = sites["answer"](client, GOAL, "\n".join(notes))
    if isinstance(final, MessageStreamManager):
        with final as stream:
            final = stream.get_final_message()
    return "".join(b.text for b in final.content if b.type == "text")
