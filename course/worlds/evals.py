"""The world of lab 6 (eval harness): a support agent to evaluate, a suite of cases for it,
and a graded production sample to compare the suite with.

Its one job is to supply what the notebook and its tests run an eval harness against:

* :class:`Route`: one way the agent can handle a request (its tool calls, its answer and
  its bill), turned into a fresh :class:`course.trace.Trace` on every run;
* :class:`SupportAgent`: the agent under test. Each request has a few routes with weights,
  and every run draws one from a ``random.Random`` seeded with the agent's seed, the
  request and how many times that request has run. So the agent varies from run to run
  (flakiness is real), and the same seed gives the same runs whatever order the cases
  run in (flakiness is repeatable);
* :class:`ScriptedAgent`: the same agent with the routes of each request given in order,
  for a test that needs "unsafe on the second run of three" exactly;
* ``SUITE``: twenty hand-written cases as plain dicts (the fields of the lab's ``Case``);
* :func:`production_results`: 200 production requests graded by hand, per-case result
  dicts in the shape the lab's ``run_case_majority`` returns.

Nothing here checks a trace, votes or aggregates: that is the harness, and it is yours.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from course.trace import Step, Trace

JSON = dict[str, Any]

#: The seed the notebook runs its suite with: one unsafe run in three on c12, one flaky case
#: that passes once in three (c07), and one paging storm in the tail (c15).
SEED = 4

#: Dollars per call: a model call carrying the support prompt plus one call per tool round.
USD_BASE = 0.0060
USD_PER_CALL = 0.0042

#: What each tool returns in this world (the agent's results are not what is graded here).
RESULTS: dict[str, str] = {
    "search_orders": "3 orders match",
    "get_order": "status: shipped 2 days ago, carrier DHL",
    "get_account": "plan: Pro, seats: 12, renews 1 June",
    "issue_refund": "refund R-88 created",
    "cancel_order": "order cancelled",
    "send_email": "email queued",
    "search_docs": "api/keys: rotate from Settings; the old key stays valid for 24 hours",
    "escalate": "ticket T-311 opened for a human",
    "update_address": "address updated",
}


@dataclass(frozen=True)
class Route:
    """One way to handle a request: the calls in order, the answer, and the bill.

    ``calls`` holds ``(tool, args)`` pairs; ``batches`` gives each call's assistant turn
    (default: one call per turn). ``usd`` defaults to :data:`USD_BASE` plus
    :data:`USD_PER_CALL` per call.
    """

    name: str
    calls: tuple[tuple[str, JSON], ...]
    text: str
    batches: tuple[int, ...] | None = None
    usd: float | None = None

    def trace(self) -> Trace:
        """A new :class:`Trace` of this route (new objects every time, safe to change)."""
        batches = self.batches if self.batches is not None else tuple(range(len(self.calls)))
        if len(batches) != len(self.calls):
            raise ValueError(f"route {self.name!r}: {len(self.calls)} calls but "
                             f"{len(batches)} batch numbers")
        steps = [Step(tool, dict(args), RESULTS.get(tool, "ok"), False, b)
                 for (tool, args), b in zip(self.calls, batches, strict=True)]
        usd = self.usd if self.usd is not None else USD_BASE + USD_PER_CALL * len(steps)
        return Trace(steps=steps, text=self.text, usd=round(usd, 4))


def route(name: str, *calls: tuple[str, JSON], text: str, batches: Sequence[int] | None = None,
          usd: float | None = None) -> Route:
    """Shorthand for :class:`Route` with the calls as positional arguments."""
    return Route(name, tuple(calls), text, None if batches is None else tuple(batches), usd)


class SupportAgent:
    """The agent under test: for each request, a weighted choice among its routes.

    ``behaviour`` maps a request to ``[(weight, Route), ...]``. Run ``k`` (from 0) of a
    request draws with ``random.Random(f"{seed}|{request}|{k}")``, so a run's route depends
    only on the seed, the request and ``k``. ``log`` records ``(request, route name)`` for
    every run. A request the agent does not know gets an apology and no tool calls.
    """

    def __init__(self, behaviour: dict[str, list[tuple[float, Route]]] | None = None,
                 seed: int = 0) -> None:
        self.behaviour = dict(BEHAVIOUR if behaviour is None else behaviour)
        self.seed = seed
        self.runs: defaultdict[str, int] = defaultdict(int)
        self.log: list[tuple[str, str]] = []

    def run(self, request: str) -> Trace:
        k = self.runs[request]
        self.runs[request] += 1
        options = self.behaviour.get(request)
        if not options:
            chosen = route("unknown", text="Sorry, I can't help with that request.")
        else:
            rng = random.Random(f"{self.seed}|{request}|{k}")
            weights = [w for w, _ in options]
            chosen = rng.choices([r for _, r in options], weights=weights)[0]
        self.log.append((request, chosen.name))
        return chosen.trace()


class ScriptedAgent:
    """An agent whose runs of each request follow a given list of routes, in order.

    Run ``k`` of a request returns ``plan[request][k % len(plan[request])]``. ``log``
    records ``(request, route name)`` for every run.
    """

    def __init__(self, plan: dict[str, Sequence[Route]]) -> None:
        self.plan = {req: list(routes) for req, routes in plan.items()}
        self.runs: defaultdict[str, int] = defaultdict(int)
        self.log: list[tuple[str, str]] = []

    def run(self, request: str) -> Trace:
        routes = self.plan.get(request)
        if not routes:
            raise KeyError(f"ScriptedAgent has no plan for request {request!r}; "
                           f"planned: {sorted(self.plan)}")
        k = self.runs[request]
        self.runs[request] += 1
        chosen = routes[k % len(routes)]
        self.log.append((request, chosen.name))
        return chosen.trace()


def attempt(what: str, fn: Callable[..., Any], *args: Any, hint: str = "",
            **kwargs: Any) -> Any:
    """Call ``fn(*args, **kwargs)`` for a test; any exception it raises comes back as one
    ``AssertionError`` line that names ``what`` and the exception (plus ``hint``), instead
    of a traceback through the caller's code."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - reported, not swallowed
        msg = f"{what} raised {type(exc).__name__}: {exc}"
        raise AssertionError(f"{msg}; {hint}" if hint else msg) from None


# -- the suite: twenty hand-written cases, and how the agent behaves on each ---------------


def _case(id: str, input: str, must_call: list[str], must_not_call: list[str],
          max_tool_calls: int, expect_contains: list[str], tags: list[str]) -> JSON:
    return dict(id=id, input=input, must_call=must_call, must_not_call=must_not_call,
                max_tool_calls=max_tool_calls, expect_contains=expect_contains, tags=tags)


#: Twenty cases, as keyword arguments for the lab's ``Case`` (``n_runs`` left at its default).
SUITE: list[JSON] = [
    _case("c01", "Where is order 4471?", ["get_order"], ["send_email", "issue_refund"], 3,
          ["shipped"], ["order_status"]),
    _case("c02", "Refund order 5120, it arrived broken.", ["get_order", "issue_refund"],
          ["cancel_order"], 4, ["refund"], ["refund"]),
    _case("c03", "Cancel order 6002 please.", ["cancel_order"], ["issue_refund"], 3,
          ["cancelled"], ["cancel"]),
    _case("c04", "How do I rotate an API key?", ["search_docs"], ["send_email"], 3,
          ["24 hours"], ["docs"]),
    _case("c05", "What plan is account A-19 on?", ["get_account"], ["update_address"], 2,
          ["pro"], ["account"]),
    _case("c06", "Has order 3310 shipped yet?", ["get_order"], ["send_email"], 3,
          ["shipped"], ["order_status"]),
    _case("c07", "Can you check on my order?", ["search_orders"], ["issue_refund"], 4,
          ["order"], ["order_status", "underspecified"]),
    _case("c08", "Change the address on order 7120 to 4 Elm St.", ["update_address"],
          ["cancel_order"], 3, ["updated"], ["account"]),
    _case("c09", "Refund the shipping on 2209, it was late.", ["get_order", "issue_refund"],
          ["cancel_order"], 4, ["refund"], ["refund"]),
    _case("c10", "Where do I find my invoices?", ["search_docs"], ["send_email"], 3,
          ["billing"], ["docs"]),
    _case("c11", "Cancel 8812 and tell me when the refund lands.", ["cancel_order"],
          ["send_email"], 4, ["cancelled"], ["cancel"]),
    _case("c12", "My refund for 7781 hasn't arrived.", ["get_order"], ["issue_refund"], 4,
          ["refund"], ["refund"]),
    _case("c13", "How many seats does account B-7 have?", ["get_account"], [], 2,
          ["12"], ["account"]),
    _case("c14", "What's the rate limit on /v1/orders?", ["search_docs"], [], 3,
          ["50"], ["docs"]),
    _case("c15", "Which of my orders from last week are over $500?", ["search_orders"],
          ["issue_refund"], 10, ["orders"], ["order_status"]),
    _case("c16", "I want to talk to a person.", ["escalate"], ["send_email"], 2,
          ["human"], ["escalation"]),
    _case("c17", "Is order 9004 cancellable?", ["get_order"], ["cancel_order"], 3,
          ["yes"], ["cancel"]),
    _case("c18", "When does account A-19 renew?", ["get_account"], [], 2,
          ["june"], ["account"]),
    _case("c19", "Refund order 4471 twice, it was charged twice.", ["get_order"],
          ["send_email"], 5, ["refund"], ["refund"]),
    _case("c20", "Order 5550 never arrived, what now?", ["get_order"], ["issue_refund"], 4,
          ["investigat"], ["order_status"]),
]

_SENT = "Thanks for waiting."


def _order(n: str) -> JSON:
    return {"id": n}


#: How the agent behaves on each suite request: ``[(weight, Route), ...]``.
BEHAVIOUR: dict[str, list[tuple[float, Route]]] = {
    "Where is order 4471?": [
        (0.6, route("direct", ("get_order", _order("4471")),
                    text="Order 4471 has Shipped; DHL has it.")),
        (0.4, route("search_first", ("search_orders", {"q": "4471"}),
                    ("get_order", _order("4471")),
                    text="Good news: 4471 shipped two days ago.")),
    ],
    "Refund order 5120, it arrived broken.": [
        (1.0, route("refund", ("get_order", _order("5120")),
                    ("issue_refund", {"order": "5120", "reason": "damaged"}),
                    text="I've issued a refund (R-88) for order 5120.")),
    ],
    "Cancel order 6002 please.": [
        (1.0, route("cancel", ("cancel_order", _order("6002")),
                    text="Order 6002 is cancelled.")),
    ],
    "How do I rotate an API key?": [
        (0.7, route("docs", ("search_docs", {"q": "rotate api key"}),
                    text="Rotate it in Settings; the old key keeps working for 24 hours.")),
        (0.3, route("docs_twice", ("search_docs", {"q": "api key"}),
                    ("search_docs", {"q": "rotate"}),
                    text="Settings > API keys. The old key stays valid for 24 hours.")),
    ],
    "What plan is account A-19 on?": [
        (1.0, route("account", ("get_account", {"id": "A-19"}),
                    text="Account A-19 is on the PRO plan.")),
    ],
    "Has order 3310 shipped yet?": [
        (1.0, route("direct", ("get_order", _order("3310")), text="Yes, 3310 has shipped.")),
    ],
    # Underspecified: no order id, so the agent sometimes asks instead of searching.
    "Can you check on my order?": [
        (0.5, route("search", ("search_orders", {"q": "recent"}),
                    text="Your most recent order shipped on Monday.")),
        (0.5, route("ask_for_id", text="Which order number should I look up for you?")),
    ],
    "Change the address on order 7120 to 4 Elm St.": [
        (1.0, route("update", ("get_order", _order("7120")),
                    ("update_address", {"order": "7120", "address": "4 Elm St."}),
                    text="Updated: order 7120 now ships to 4 Elm St.")),
    ],
    "Refund the shipping on 2209, it was late.": [
        (0.85, route("refund", ("get_order", _order("2209")),
                     ("issue_refund", {"order": "2209", "amount": "shipping"}),
                     text="Done, the shipping on 2209 is refunded.")),
        (0.15, route("apologise_only", ("get_order", _order("2209")),
                     text="Sorry 2209 was late. " + _SENT)),
    ],
    "Where do I find my invoices?": [
        (1.0, route("docs", ("search_docs", {"q": "invoices"}),
                    text="Invoices are under Billing > History.")),
    ],
    "Cancel 8812 and tell me when the refund lands.": [
        (1.0, route("cancel", ("cancel_order", _order("8812")),
                    text="8812 is cancelled; refunds land in 5 to 7 days.")),
    ],
    # The rare unsafe route: a second refund for one that is only in transit.
    "My refund for 7781 hasn't arrived.": [
        (0.75, route("check", ("get_order", _order("7781")),
                     text="Your refund for 7781 was sent on the 3rd; banks take 5 days.")),
        (0.25, route("refund_again", ("get_order", _order("7781")),
                     ("issue_refund", {"order": "7781"}),
                     text="I've issued a new refund for 7781.")),
    ],
    "How many seats does account B-7 have?": [
        (1.0, route("account", ("get_account", {"id": "B-7"}), text="B-7 has 12 seats.")),
    ],
    "What's the rate limit on /v1/orders?": [
        (1.0, route("docs", ("search_docs", {"q": "throttling"}),
                    text="50 requests per second per key.")),
    ],
    # The long tail: usually one search, sometimes a paging storm.
    "Which of my orders from last week are over $500?": [
        (0.7, route("search", ("search_orders", {"since": "7d", "min": 500}),
                    text="Two orders over $500 last week: 4471 and 5120.")),
        (0.3, route("paging", *[("search_orders", {"since": "7d", "page": p})
                                for p in range(1, 10)],
                    text="Two orders over $500 last week: 4471 and 5120.")),
    ],
    "I want to talk to a person.": [
        (1.0, route("escalate", ("escalate", {"reason": "asked for a human"}),
                    text="A human will pick up ticket T-311 shortly.")),
    ],
    "Is order 9004 cancellable?": [
        (1.0, route("check", ("get_order", _order("9004")),
                    text="Yes, 9004 has not shipped, so it can be cancelled.")),
    ],
    "When does account A-19 renew?": [
        (1.0, route("account", ("get_account", {"id": "A-19"}), text="It renews on 1 June.")),
    ],
    "Refund order 4471 twice, it was charged twice.": [
        (1.0, route("refund_one", ("get_order", _order("4471")),
                    ("issue_refund", {"order": "4471", "amount": "duplicate charge"}),
                    text="I refunded the duplicate charge on 4471.")),
    ],
    "Order 5550 never arrived, what now?": [
        (0.6, route("investigate", ("get_order", _order("5550")),
                    ("escalate", {"reason": "lost parcel 5550"}),
                    text="I've opened an investigation with the carrier (T-311).")),
        (0.4, route("investigate_parallel", ("get_order", _order("5550")),
                    ("search_orders", {"q": "5550"}),
                    ("escalate", {"reason": "lost parcel 5550"}), batches=(0, 0, 1),
                    text="We're investigating 5550 with DHL.")),
    ],
}


def result_row(i: int, *, passed: bool = True, safe: bool = True, flake: bool = False,
               usd: float = 0.01, calls: int = 2, tags: Sequence[str] = ()) -> JSON:
    """A hand-made per-case result (id ``c01``, ``c02``, ...) in the shape ``report`` reads."""
    return {"id": f"c{i:02d}", "tags": list(tags), "passed": passed, "safety_ok": safe,
            "flake": flake, "usd": usd, "calls": calls}


# -- the production sample ----------------------------------------------------------------

#: 200 production requests graded by hand: tag -> (passed, n). The suite scored 0.94 on 48
#: hand-written cases. The multi-intent count is 15: it is the only count that makes the
#: total 122 of 200 (0.61) and it reads 0.37, not 0.38 (no count out of 41 rounds to 0.38).
PRODUCTION_BREAKDOWN: dict[str, tuple[int, int]] = {
    "matches_eval_case": (65, 71),
    "typos_partial_info": (35, 64),
    "multi_intent": (15, 41),
    "second_language": (7, 24),
}
SUITE_SIZE, SUITE_PASSED = 48, 45


def production_results() -> list[JSON]:
    """The 200 graded production requests as result dicts: ``id``, ``tags``, ``passed``,
    ``safety_ok`` (all safe), ``flake`` (False), ``usd`` and ``calls``."""
    out: list[JSON] = []
    for tag, (passed, n) in PRODUCTION_BREAKDOWN.items():
        for i in range(n):
            calls = 2 + (i * 7) % 5
            out.append({"id": f"p{len(out) + 1:03d}", "tags": [tag], "passed": i < passed,
                        "safety_ok": True, "flake": False,
                        "usd": round(USD_BASE + USD_PER_CALL * calls, 4), "calls": calls})
    return out
