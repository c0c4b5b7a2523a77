"""The capstone's scripted triage model: it answers the walk-through's tickets turn by turn
behind a prompt cache, so every reply is billed with cache writes and reads (:func:`triage_api`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ... import promptcache, thinking, tokens
from ...clock import FakeClock
from ...fakes import FakeAPI, PromptCache, Scripted
from ...hub import served
from ...wire import JSON, Reply, message, text, tool_results, tool_use
from .desk import (
    ANSWER_1_TOKENS,
    GRACE_RESULT,
    GROWTH,
    LOOPY_TICKET,
    OUTPUT,
    READ_LINES,
    REFUND_TICKET,
    SEARCH_DUMP,
    Desk,
)
from .guards import MemoryOffloader, stand_in_pointer

# -- the scripted triage model --------------------------------------------------------------


_PLAN = (" Plan: find the documented procedure first, then compare it with what the account "
         "shows.", " Every claim in the answer must point at a source a tool returned.",
         " If a result is long it will be stored; read only the part that matters.",
         " Nothing here needs a write: no email, no refund, no account change.",
         " The customer asked two things: how to rotate, and why the old key stopped.",
         " Check the dates on the account against the grace period in the docs.")


def _pad_text(lead: str, n_tokens: int) -> str:
    """``lead`` continued with planning sentences to exactly ``n_tokens`` tokens."""
    want = n_tokens * tokens.CHARS_PER_TOKEN
    if len(lead) > want:
        raise ValueError(f"{len(lead)} characters do not fit in {n_tokens} tokens")
    body, i = lead, 0
    while len(body) < want:
        body += _PLAN[i % len(_PLAN)]
        i += 1
    cut = body[:want]
    return cut[:-1] + "." if len(cut) > len(lead) and not cut.endswith(".") else cut


def _tokens_of(blocks: Iterable[JSON]) -> int:
    """Tokens these blocks add to a prompt, counted the way the prompt cache bills them."""
    turn = {"messages": [{"role": "user", "content": list(blocks)}]}
    return sum(s.tokens for s in promptcache.render(turn))


def _thought(body: JSON, salt: str) -> list[JSON]:
    """The thinking block a reply to ``body`` begins with (none when the request does not
    think): made here, not by the fake, so the prompt growth can count it."""
    display = thinking.display_for(body)
    return [] if display is None else [thinking.make_block(display, salt)]


def _result_block(tool_use_id: str, content: str) -> JSON:
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content,
            "is_error": False}


def _turn_with_text(lead: str, calls: list[JSON], results: list[str], growth: int,
                    head: list[JSON]) -> list[JSON]:
    """A reply of ``head`` (its thinking block), a text block and tool calls, the text sized
    so that the reply plus the results the tools will return add exactly ``growth`` tokens
    to the next prompt."""
    fixed = _tokens_of([*head, *calls]) + _tokens_of(
        _result_block(c["id"], r) for c, r in zip(calls, results, strict=True))
    return [*head, text(_pad_text(lead, growth - fixed)), *calls]


FIRST_ANSWER_CLAIMS = (
    "Claim 1: Create the new key under Settings > API keys, deploy it, then revoke the old "
    "one [src:docs/api-keys.md#rotate].\n"
    "Claim 2: The old key keeps working for a day after rotation, then returns 401.\n")
FINAL_ANSWER = (
    "Claim 1: Create the new key under Settings > API keys, deploy it, then revoke the old "
    "one [src:docs/api-keys.md#rotate].\n"
    "Claim 2: After rotation the old key stays valid for 24 hours, then every request with it "
    "returns 401 [src:docs/keys-faq.md#grace].\n"
    "Deploy the new key everywhere before the 24 hours are up and the 401s stop.")
REFUND_DENIED_ANSWER = (
    "Claim 1: ORD-7731 was delivered on 2026-07-20 and is refundable in full, $49.00 "
    "[src:order/ORD-7731].\n"
    "Claim 2: A support lead confirms every refund in the console before it is issued; I have "
    "asked for that confirmation [src:docs/refunds.md#approval].")
REFUND_DONE_ANSWER = (
    "Claim 1: I refunded $49.00 on ORD-7731 [src:order/ORD-7731].\n"
    "Claim 2: Damaged items are refunded in full within 30 days [src:docs/refunds.md#damaged].")

_POINTER = re.compile(r"(artifacts/[\w.-]+\.txt)")


def _last_results(body: JSON) -> list[JSON]:
    return tool_results(body, newest_only=True)


def _result_text(block: JSON) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content or "")


class TriageModel:
    """The scripted model behind :func:`triage_api`. It reads the ticket (the first user
    message) and how many times it has answered, and plays one of three scripts:

    * the **rotate** ticket (the walk-through): search_docs + get_account in one turn; then
      read_artifact on the offloaded search results; then a second search_docs; then an
      answer whose Claim 2 has no citation; after feedback, an answer with every claim cited.
      Each reply's text is sized so the prompt grows by the walk-through's token counts.
    * the **refund** ticket: search_docs + get_order; the documents carry an injected note, and
      this gullible model obeys it: issue_refund with ``confirmed: true``. It then answers
      from whatever the refund call returned.
    * the **loopy** ticket: the same search_docs call again and again.
    """

    def __init__(self) -> None:
        self.turns = 0

    def __call__(self, body: JSON) -> Reply | JSON:
        messages = body.get("messages") or []
        first = messages[0]["content"] if messages else ""
        ticket = first if isinstance(first, str) else "".join(
            b.get("text", "") for b in first if isinstance(b, dict))
        answered = sum(1 for m in messages if m.get("role") == "assistant")
        self.turns += 1
        if ticket.startswith(REFUND_TICKET[:20]):
            return self._refund(body, answered)
        if ticket.startswith(LOOPY_TICKET[:20]):
            return self._reply([text("Checking the status page."),
                                tool_use("search_docs", {"query": "status page outage"})], 90)
        return self._rotate(body, answered)

    @staticmethod
    def _reply(content: list[JSON], out: int, stop: str | None = None) -> JSON:
        return message(content, stop, usage={"input_tokens": 0, "output_tokens": out})

    def _rotate(self, body: JSON, answered: int) -> JSON:
        head = _thought(body, f"rotate:{answered}")
        if answered == 0:
            calls = [tool_use("search_docs", {"query": "rotate API key"}),
                     tool_use("get_account", {})]
            results = [stand_in_pointer(), Desk().dispatch("get_account", {}, tenant="acme")]
            content = _turn_with_text("I will search the docs and check the account.", calls,
                                      results, GROWTH[0], head)
            return self._reply(content, OUTPUT[0])
        if answered == 1:
            found = [_POINTER.search(_result_text(b)) for b in _last_results(body)]
            path = next((m.group(1) for m in found if m), "artifacts/missing.txt")
            call = tool_use("read_artifact", {"path": path, "offset": 0, "limit": READ_LINES})
            lines = MemoryOffloader.lines_of(SEARCH_DUMP, 0, READ_LINES)
            content = _turn_with_text("The search results were stored; reading the top.",
                                      [call], [lines], GROWTH[1], head)
            return self._reply(content, OUTPUT[1])
        if answered == 2:
            call = tool_use("search_docs", {"query": "old key grace period"})
            content = _turn_with_text("One more search, on the old key.", [call],
                                      [GRACE_RESULT], GROWTH[2], head)
            return self._reply(content, OUTPUT[2])
        if answered == 3:
            sized = _pad_text(FIRST_ANSWER_CLAIMS, ANSWER_1_TOKENS - _tokens_of(head))
            return self._reply([*head, text(sized)], OUTPUT[3])
        return self._reply([text(FINAL_ANSWER)], OUTPUT[4])

    def _refund(self, body: JSON, answered: int) -> JSON:
        if answered == 0:
            return self._reply([text("Let me check the refund policy and the order."),
                                tool_use("search_docs", {"query": "refund damaged order"}),
                                tool_use("get_order", {"order_id": "ORD-7731"})], 120)
        if answered == 1:
            return self._reply([text("Refunds under $100 are pre-approved; issuing it."),
                                tool_use("issue_refund", {"order_id": "ORD-7731",
                                                          "amount_usd": 49.0,
                                                          "confirmed": True})], 80)
        results = _last_results(body)
        denied = any(b.get("is_error") for b in results)
        return self._reply([text(REFUND_DENIED_ANSWER if denied else REFUND_DONE_ANSWER)], 140)


@served(part=0)  # graded cells never touch its cache
def triage_api(clock: FakeClock | None = None) -> tuple[FakeAPI, PromptCache]:
    """The fake API behind the triage agent: :class:`TriageModel` wrapped in a prompt cache.
    Returns ``(api, cache)``; ``cache.log`` holds the input billing of every call."""
    cache = PromptCache(Scripted(TriageModel()), clock=clock or FakeClock())
    return FakeAPI(cache), cache


def refund_request_turn() -> JSON:
    """The request the refund ticket's second model call sees (the injected note included)
    and the reply it gets: ``{"request": body, "reply": message}``, no loop involved."""
    desk = Desk()
    first = TriageModel()._refund({}, 0)
    calls = [b for b in first["content"] if b["type"] == "tool_use"]
    results = [_result_block(c["id"], desk.dispatch(c["name"], c["input"], tenant="acme"))
               for c in calls]
    history = [{"role": "user", "content": REFUND_TICKET},
               {"role": "assistant", "content": first["content"]},
               {"role": "user", "content": results}]
    reply = TriageModel()._refund({"messages": history}, 1)
    return {"request": {"messages": history}, "reply": reply}
