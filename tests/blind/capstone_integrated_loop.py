"""Blind samples for capstone_integrated_loop: written from the release notebook alone.

Each bug is the base solution below with ONE line-level deviation from what the notebook
states, made with :func:`_swap` (which fails loudly if the edited text is not in the base).
The correct variants are written out in full, in a different structure.

Written before the notebook settled what an empty citation id does (`[src:]` and
`[src: ]` never resolve; an id is stripped of spaces): the base and the correct variants
were then brought to that rule, nothing else.
"""

from course.grading.proofs.blind import Blind

AUTHORIZE = r'''from course.worlds import capstone as world


def authorize(tool, args, tenant, *, approved):
    """Allow-list: read-only tools pass; a write needs a tenant and a console confirmation
    (approved(tenant, tool, args) is True); everything else is denied. args never confirm."""
    if tool in world.READ_ONLY:
        return True
    if tool in world.WRITE:
        return bool(tenant) and approved(tenant, tool, args) is True
    return False
'''

GOAL = r'''import re


def goal_predicate(text, trace):
    """(True, "") when there is a claim and every claim's citations all resolve in the trace;
    (False, NO_CLAIMS) with no claim; else (False, UNVERIFIED.format(labels=...))."""
    claims = [line.strip() for line in (text or "").splitlines()
              if line.strip().startswith("Claim")]
    if not claims:
        return False, NO_CLAIMS
    sources = [step.result for step in trace.steps if not step.is_error]
    failing = []
    for claim in claims:
        ids = [cid.strip() for cid in re.findall(r"\[src:([^\]]*)\]", claim)]
        ids = ids if all(ids) else []     # an empty id never resolves
        if not ids or not all(any(cid in src for src in sources) for cid in ids):
            failing.append(claim.split(":", 1)[0].strip())
    if failing:
        return False, UNVERIFIED.format(labels=", ".join(failing))
    return True, ""
'''

RUN = r'''import time

from course.trace import Step, Trace


def run(request, tenant, *, client, guards, limit_usd=2.00, max_steps=40):
    """The integrated loop: every guard in its place. Returns the result dict; never raises."""
    trace = Trace()

    def finish(stop, reason, *, ok=False, partial=False, text="", source="model", usd=0.0):
        trace.text, trace.usd = text, usd
        return {"ok": ok, "partial": partial, "stop": stop, "reason": reason, "text": text,
                "source": source, "usd": usd, "trace": trace}

    hit = guards.cache.get(request, namespace=tenant)
    if hit is not None:
        return finish("cache_hit", "Answered from the semantic cache; no model call was made.",
                      ok=True, text=hit, source="semantic_cache", usd=0.0)

    agent = guards.agent
    budget = guards.Budget(limit_usd)
    loop_guard = guards.LoopGuard(max_steps=max_steps)
    messages = [{"role": "user", "content": request}]

    def attempt():
        start = time.perf_counter()
        reply = client.messages.create(**agent.request(messages))
        ms = (time.perf_counter() - start) * 1000.0
        guards.ledger.record("agent", agent.model, reply.usage, ms)
        budget.charge(agent.model, reply.usage)
        return reply

    for k in range(max_steps):
        try:
            reply = guards.retry(attempt)
        except Exception as exc:
            return finish("api_error", f"The model call failed: {type(exc).__name__}: {exc}",
                          usd=budget.spent)
        stop = reply.stop_reason
        if stop == "max_tokens":
            return finish("max_tokens", "The reply was cut off at max_tokens.",
                          usd=budget.spent)
        if stop == "refusal":
            return finish("refusal", "The model refused to answer.", usd=budget.spent)
        if stop not in ("end_turn", "tool_use"):
            return finish("stop_reason", f"The model stopped with {stop!r}, which this loop "
                          "does not handle.", usd=budget.spent)

        if stop == "end_turn":
            answer = "".join(b.text for b in reply.content if b.type == "text")
            passed, feedback = guards.goal(answer, trace)
            if passed:
                if guards.cacheable(request, answer):
                    guards.cache.put(request, answer, namespace=tenant)
                return finish("answered", "The answer passed the goal predicate.", ok=True,
                              text=answer, usd=budget.spent)
            if reply.content:
                messages.append({"role": "assistant", "content": reply.content})
            blocks = [{"type": "text", "text": feedback}]
        else:
            messages.append({"role": "assistant", "content": reply.content})
            blocks = []
            for block in reply.content:
                if block.type != "tool_use":
                    continue
                name, args = block.name, block.input
                halt = False
                if not guards.authorize(name, args, tenant):
                    content, is_error = f"Not permitted: {name}", True
                else:
                    try:
                        content, is_error = agent.dispatch(name, args, tenant=tenant), False
                    except Exception as exc:
                        content, is_error = f"Error: {exc}", True
                    if not is_error:
                        content = guards.offloader.wrap(name, content)
                    nudge = loop_guard.check(name, args, agent.snapshot(),
                                             progress=agent.progress())
                    if nudge is not None:
                        content, is_error = nudge, True
                    halt = loop_guard.halted or loop_guard.trips > 1
                trace.steps.append(Step(name, args, content, is_error, batch=k))
                blocks.append({"type": "tool_result", "tool_use_id": block.id,
                               "content": content, "is_error": is_error})
                if halt:
                    return finish("loop_guard", "The loop guard stopped a run that repeats "
                                  "itself.", partial=True, usd=budget.spent)
        try:
            note = budget.guard()
        except guards.BudgetExceeded as exc:
            return finish("budget", f"The run's budget is spent: {exc}.", partial=True,
                          usd=budget.spent)
        if note:
            blocks.append({"type": "text", "text": note})
        messages.append({"role": "user", "content": blocks})
    return finish("step_cap", f"Stopped after {max_steps} model calls without a verified "
                  "answer.", partial=True, usd=budget.spent)
'''


def _swap(source: str, old: str, new: str) -> str:
    """``source`` with its one occurrence of ``old`` replaced by ``new``."""
    if source.count(old) != 1:
        raise ValueError(f"the base source holds {source.count(old)} copies of {old!r}, not 1")
    return source.replace(old, new)


def _cells(authorize: str = AUTHORIZE, goal: str = GOAL, run: str = RUN) -> dict[str, str]:
    """The three code answer cells, the base solution unless one is given."""
    return {"authorize": authorize, "goal_predicate": goal, "run": run}


AUTHORIZE_CLASSIC = r'''from course.worlds import capstone as world


def authorize(tool, args, tenant, *, approved):
    """Allow-list: read-only tools pass; a write needs a tenant and a console confirmation
    (approved(tenant, tool, args) is True); everything else is denied. args never confirm."""
    if tool in world.WRITE:
        if not tenant:
            return False
        return approved(tenant, tool, args) is True
    return tool in world.READ_ONLY
'''

GOAL_JOINED_EVIDENCE = r'''import re


def goal_predicate(text, trace):
    """(True, "") when there is a claim and every claim's citations all resolve in the trace;
    (False, NO_CLAIMS) with no claim; else (False, UNVERIFIED.format(labels=...))."""
    # A claim is one line, so a cited id never holds a newline: searching the results joined
    # by newlines finds it exactly when one single result holds it.
    evidence = "\n".join(s.result for s in trace.steps if not s.is_error)
    labels, claims = [], 0
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("Claim"):
            continue
        claims += 1
        cited = [c.strip() for c in re.findall(r"\[src:([^\]]*)\]", line)]
        if not cited or any(not c or c not in evidence for c in cited):
            labels.append(line.partition(":")[0].strip())
    if claims == 0:
        return (False, NO_CLAIMS)
    if labels:
        return (False, UNVERIFIED.format(labels=", ".join(labels)))
    return (True, "")
'''

RUN_CLASS = r'''import time

from course.trace import Step, Trace

_PARTIAL = {"budget", "loop_guard", "step_cap"}
_FAILED = {"max_tokens": "The reply was cut off at max_tokens.",
           "refusal": "The model refused."}


class _Loop:
    """One run of the integrated loop: its guards, books, history and trace."""

    def __init__(self, request, tenant, client, guards, limit_usd, max_steps):
        self.request, self.tenant, self.client, self.g = request, tenant, client, guards
        self.limit_usd, self.max_steps = limit_usd, max_steps
        self.trace = Trace()
        self.budget = self.loop_guard = None
        self.history = []

    def result(self, stop, reason, text=""):
        usd = self.budget.spent if self.budget is not None else 0.0
        self.trace.text, self.trace.usd = text, usd
        return {"ok": stop in ("answered", "cache_hit"), "partial": stop in _PARTIAL,
                "stop": stop, "reason": reason, "text": text,
                "source": "semantic_cache" if stop == "cache_hit" else "model",
                "usd": usd, "trace": self.trace}

    def attempt(self):
        agent = self.g.agent
        t0 = time.perf_counter()
        reply = self.client.messages.create(**agent.request(self.history))
        self.g.ledger.record("agent", agent.model, reply.usage,
                             1000.0 * (time.perf_counter() - t0))
        self.budget.charge(agent.model, reply.usage)
        return reply

    def one_call(self, name, args):
        """(content, is_error, stop) for one allowed tool call."""
        agent = self.g.agent
        try:
            raw = agent.dispatch(name, args, tenant=self.tenant)
        except Exception as exc:
            content, is_error = f"Error: {exc}", True
        else:
            content, is_error = self.g.offloader.wrap(name, raw), False
        nudge = self.loop_guard.check(name, args, agent.snapshot(), progress=agent.progress())
        if nudge is not None:
            content, is_error = nudge, True
        return content, is_error, self.loop_guard.halted or self.loop_guard.trips > 1

    def tools(self, reply, batch):
        """The user blocks of a tool turn, or a stop name if the loop guard ends the run."""
        blocks = []
        for block in (b for b in reply.content if b.type == "tool_use"):
            stop = False
            if self.g.authorize(block.name, block.input, self.tenant):
                content, is_error, stop = self.one_call(block.name, block.input)
            else:
                content, is_error = f"Not permitted: {block.name}", True
            self.trace.steps.append(Step(block.name, block.input, content, is_error,
                                         batch=batch))
            blocks.append({"type": "tool_result", "tool_use_id": block.id,
                           "content": content, "is_error": is_error})
            if stop:
                return "loop_guard"
        return blocks

    def go(self):
        g = self.g
        cached = g.cache.get(self.request, namespace=self.tenant)
        if cached is not None:
            return self.result("cache_hit", "Served from the semantic cache.", cached)
        self.budget = g.Budget(self.limit_usd)
        self.loop_guard = g.LoopGuard(max_steps=self.max_steps)
        self.history.append({"role": "user", "content": self.request})
        calls = 0
        while calls < self.max_steps:
            batch, calls = calls, calls + 1
            try:
                reply = g.retry(self.attempt)
            except Exception as exc:
                return self.result("api_error", f"The call failed: {exc!r}")
            stop = reply.stop_reason
            if stop in _FAILED:
                return self.result(stop, _FAILED[stop])
            if stop == "end_turn":
                answer = "".join(b.text for b in reply.content if b.type == "text")
                ok, feedback = g.goal(answer, self.trace)
                if ok:
                    if g.cacheable(self.request, answer):
                        g.cache.put(self.request, answer, namespace=self.tenant)
                    return self.result("answered", "Verified by the goal predicate.", answer)
                if len(reply.content) > 0:
                    self.history.append({"role": "assistant", "content": reply.content})
                blocks = [{"type": "text", "text": feedback}]
            elif stop == "tool_use":
                self.history.append({"role": "assistant", "content": reply.content})
                blocks = self.tools(reply, batch)
                if isinstance(blocks, str):
                    return self.result(blocks, "The loop guard stopped the run.")
            else:
                return self.result("stop_reason", f"Unknown stop_reason {stop!r}.")
            try:
                note = self.budget.guard()
            except g.BudgetExceeded as exc:
                return self.result("budget", f"Over budget: {exc}")
            if note:
                blocks = blocks + [{"type": "text", "text": note}]
            self.history.append({"role": "user", "content": blocks})
        return self.result("step_cap", f"No verified answer in {self.max_steps} model calls.")


def run(request, tenant, *, client, guards, limit_usd=2.00, max_steps=40):
    """The integrated loop: every guard in its place. Returns the result dict; never raises."""
    return _Loop(request, tenant, client, guards, limit_usd, max_steps).go()
'''

AUTHORIZE_TABLE = r'''from course.worlds import capstone as world


def authorize(tool, args, tenant, *, approved):
    """Allow-list: read-only tools pass; a write needs a tenant and a console confirmation
    (approved(tenant, tool, args) is True); everything else is denied. args never confirm."""
    kind = {**dict.fromkeys(world.READ_ONLY, "read"),
            **dict.fromkeys(world.WRITE, "write")}.get(tool, "unknown")
    if kind == "read":
        return True
    if kind == "write" and len(tenant or "") > 0:
        verdict = approved(tenant, tool, args)
        return verdict is True
    return False
'''

GOAL_PARSED = r'''import re

CITE = re.compile(r"\[src:([^\]]*)\]")


def goal_predicate(text, trace):
    """(True, "") when there is a claim and every claim's citations all resolve in the trace;
    (False, NO_CLAIMS) with no claim; else (False, UNVERIFIED.format(labels=...))."""
    parsed = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("Claim"):
            label = line.split(":")[0].strip()
            parsed.append((label, [c.strip() for c in CITE.findall(line)]))
    if len(parsed) == 0:
        return False, NO_CLAIMS
    results = [s.result for s in trace.steps if not s.is_error]

    def resolves(cid):
        return bool(cid) and any(r.find(cid) >= 0 for r in results)

    bad = [label for label, ids in parsed if len(ids) == 0 or not all(map(resolves, ids))]
    return (False, UNVERIFIED.format(labels=", ".join(bad))) if bad else (True, "")
'''

RUN_WHILE = r'''import time

from course.trace import Step, Trace


def run(request, tenant, *, client, guards, limit_usd=2.00, max_steps=40):
    """The integrated loop: every guard in its place. Returns the result dict; never raises."""
    trace = Trace()
    state = {"usd": 0.0}

    def out(stop, reason, text=""):
        ok = stop in ("answered", "cache_hit")
        trace.text, trace.usd = text, state["usd"]
        return dict(ok=ok, partial=stop in ("budget", "loop_guard", "step_cap"), stop=stop,
                    reason=reason, text=text if ok else "",
                    source="semantic_cache" if stop == "cache_hit" else "model",
                    usd=state["usd"], trace=trace)

    found = guards.cache.get(request, namespace=tenant)
    if found is not None:
        return out("cache_hit", "The semantic cache already held an answer.", found)

    budget = guards.Budget(limit_usd)
    guard = guards.LoopGuard(max_steps=max_steps)
    agent = guards.agent
    history = [{"role": "user", "content": request}]

    def call_model():
        began = time.monotonic()
        reply = client.messages.create(**agent.request(history))
        guards.ledger.record("agent", agent.model, reply.usage,
                             (time.monotonic() - began) * 1e3)
        budget.charge(agent.model, reply.usage)
        state["usd"] = budget.spent
        return reply

    k = 0
    while k < max_steps:
        try:
            reply = guards.retry(call_model)
        except Exception as exc:
            state["usd"] = budget.spent
            return out("api_error", f"The model call raised {type(exc).__name__}: {exc}")
        state["usd"] = budget.spent
        reason = reply.stop_reason
        if reason in ("max_tokens", "refusal"):
            return out(reason, f"The model stopped with {reason}.")
        if reason not in ("end_turn", "tool_use"):
            return out("stop_reason", f"Unexpected stop_reason {reason!r}.")
        if reason == "tool_use":
            history.append({"role": "assistant", "content": reply.content})
            turn = []
            for use in [b for b in reply.content if b.type == "tool_use"]:
                if not guards.authorize(use.name, use.input, tenant):
                    trace.steps.append(Step(use.name, use.input, f"Not permitted: {use.name}",
                                            True, batch=k))
                    turn.append({"type": "tool_result", "tool_use_id": use.id,
                                 "content": f"Not permitted: {use.name}", "is_error": True})
                    continue
                try:
                    raw = agent.dispatch(use.name, use.input, tenant=tenant)
                except Exception as exc:
                    body, failed = f"Error: {exc}", True
                else:
                    body, failed = guards.offloader.wrap(use.name, raw), False
                nudge = guard.check(use.name, use.input, agent.snapshot(),
                                    progress=agent.progress())
                if nudge is not None:
                    body, failed = nudge, True
                trace.steps.append(Step(use.name, use.input, body, failed, batch=k))
                turn.append({"type": "tool_result", "tool_use_id": use.id, "content": body,
                             "is_error": failed})
                if guard.halted or guard.trips > 1:
                    return out("loop_guard", "The loop guard tripped again; stopping.")
        else:
            text = "".join(b.text for b in reply.content if b.type == "text")
            verdict, feedback = guards.goal(text, trace)
            if verdict:
                if guards.cacheable(request, text):
                    guards.cache.put(request, text, namespace=tenant)
                return out("answered", "The goal predicate accepted the answer.", text)
            if reply.content:
                history.append({"role": "assistant", "content": reply.content})
            turn = [{"type": "text", "text": feedback}]
        try:
            note = budget.guard()
        except guards.BudgetExceeded as exc:
            return out("budget", f"Budget exceeded: {exc}")
        history.append({"role": "user", "content": turn + ([{"type": "text", "text": note}]
                                                           if note else [])})
        k += 1
    return out("step_cap", f"Reached the cap of {max_steps} model calls.")
'''

BLIND = [
    Blind(
        name="approval_truthy_not_exactly_true",
        bug="authorize accepts any truthy value from approved(...) (bool(...)), where the "
            "notebook says a write is allowed only when approved returns exactly True",
        cells=_cells(authorize=_swap(AUTHORIZE, "and approved(tenant, tool, args) is True",
                                     "and bool(approved(tenant, tool, args))")),
    ),
    Blind(
        name="unknown_tools_allowed",
        bug="authorize gates only the WRITE tools and lets every other tool through, where the "
            "notebook says every tool outside READ_ONLY and WRITE is denied",
        cells=_cells(authorize=_swap(AUTHORIZE, "    return False\n", "    return True\n")),
    ),
    Blind(
        name="write_without_tenant",
        bug="authorize forgets that a write also needs a non-empty tenant: an approved write "
            "with tenant '' is allowed",
        cells=_cells(authorize=_swap(AUTHORIZE, "return bool(tenant) and approved(",
                                     "return approved(")),
    ),
    Blind(
        name="claim_passes_on_any_citation",
        bug="goal_predicate passes a claim when ANY of its citations resolves, where the "
            "notebook says all of its citations must resolve",
        cells=_cells(goal=_swap(GOAL, "not all(any(cid in src", "not any(any(cid in src")),
    ),
    Blind(
        name="error_results_resolve_citations",
        bug="goal_predicate resolves citations against every step's result, including steps "
            "whose is_error is True (a denial or an 'Error: ...' text)",
        cells=_cells(goal=_swap(GOAL, "for step in trace.steps if not step.is_error]",
                                "for step in trace.steps]")),
    ),
    Blind(
        name="claim_lines_not_stripped",
        bug="goal_predicate tests line.startswith('Claim') on the raw line, so an indented "
            "claim line is not a claim (the notebook says the STRIPPED text starts with Claim)",
        cells=_cells(goal=_swap(GOAL, "if line.strip().startswith(\"Claim\")]",
                                "if line.startswith(\"Claim\")]")),
    ),
    Blind(
        name="empty_cached_answer_is_a_miss",
        bug="run treats the cache lookup by truthiness (if hit:), so a cached empty string is "
            "a miss; the notebook says anything but None is a hit",
        cells=_cells(run=_swap(RUN, "    if hit is not None:\n", "    if hit:\n")),
    ),
    Blind(
        name="budget_charged_after_retry",
        bug="run records each attempt in the ledger inside attempt() but charges the budget "
            "only once, after guards.retry returns, so retried billed attempts are not charged",
        cells=_cells(run=_swap(
            _swap(RUN, "        budget.charge(agent.model, reply.usage)\n        return reply\n",
                  "        return reply\n"),
            "            reply = guards.retry(attempt)\n",
            "            reply = guards.retry(attempt)\n"
            "            budget.charge(agent.model, reply.usage)\n")),
    ),
    Blind(
        name="only_api_errors_caught",
        bug="run catches only anthropic.APIError around guards.retry, where the notebook says "
            "any Exception from retry becomes a failure result (run never raises)",
        cells=_cells(run=_swap(
            _swap(RUN, "import time\n", "import time\n\nimport anthropic\n"),
            "        except Exception as exc:\n            return finish(\"api_error\"",
            "        except anthropic.APIError as exc:\n            return finish(\"api_error\"")),
    ),
    Blind(
        name="budget_checked_only_after_tool_turns",
        bug="run checks the budget only after a tool turn (the version usually drawn); a turn "
            "that failed the goal predicate goes on to the next call with no budget.guard()",
        cells=_cells(run=_swap(
            RUN,
            "            blocks = [{\"type\": \"text\", \"text\": feedback}]\n",
            "            messages.append({\"role\": \"user\", \"content\": [{\"type\": \"text\", "
            "\"text\": feedback}]})\n            continue\n")),
    ),
    Blind(
        name="first_trip_stops_the_run",
        bug="run stops with a partial result on the loop guard's FIRST trip (trips >= 1); the "
            "notebook says the first trip's nudge replaces the result and only a second trip "
            "or a halt stops",
        cells=_cells(run=_swap(RUN, "loop_guard.trips > 1", "loop_guard.trips >= 1")),
    ),
    Blind(
        name="batch_counts_tool_turns",
        bug="run numbers a Step's batch by tool turns only (a separate counter bumped per "
            "tool turn), where k counts model calls from 0, goal-failed answers included",
        cells=_cells(run=_swap(
            _swap(
                _swap(RUN, "    for k in range(max_steps):\n",
                      "    tool_turns = 0\n    for _ in range(max_steps):\n"),
                "batch=k))", "batch=tool_turns))"),
            "        try:\n            note = budget.guard()\n",
            "        if stop == \"tool_use\":\n            tool_turns += 1\n"
            "        try:\n            note = budget.guard()\n")),
    ),
    Blind(
        name="error_results_offloaded",
        bug="run passes every allowed call's content through offloader.wrap, the 'Error: ...' "
            "text of a tool that raised included; the notebook says only a SUCCESSFUL result "
            "is wrapped",
        cells=_cells(run=_swap(RUN, "                    if not is_error:\n"
                                    "                        content = guards.offloader.wrap(",
                               "                    content = guards.offloader.wrap(")),
    ),
    Blind(
        name="cache_put_without_namespace",
        bug="run stores a passing, cacheable answer with guards.cache.put(request, answer), "
            "dropping namespace=tenant, so it lands in the cache's default namespace",
        cells=_cells(run=_swap(RUN, "guards.cache.put(request, answer, namespace=tenant)",
                               "guards.cache.put(request, answer)")),
    ),
    Blind(
        name="denied_calls_not_traced",
        bug="run appends a Step only for allowed calls; the notebook says one Step per "
            "tool_use block, denied ones included",
        cells=_cells(run=_swap(
            RUN, "                    content, is_error = f\"Not permitted: {name}\", True\n",
            "                    blocks.append({\"type\": \"tool_result\", \"tool_use_id\": "
            "block.id,\n                                   \"content\": f\"Not permitted: "
            "{name}\", \"is_error\": True})\n                    continue\n")),
    ),
    Blind(
        name="budget_note_before_results",
        bug="run puts the budget's wrap-up note FIRST in the turn's user blocks; the notebook "
            "says it is added at the end, after the tool results (or the feedback)",
        cells=_cells(run=_swap(RUN, "blocks.append({\"type\": \"text\", \"text\": note})",
                               "blocks.insert(0, {\"type\": \"text\", \"text\": note})")),
    ),
    Blind(
        name="class_based_loop",
        bug="run is a class with one method per stage and a while loop over a call counter; "
            "authorize checks WRITE first; goal_predicate searches the non-error results "
            "joined by newlines (equivalent, since a cited id lies on one line)",
        cells=_cells(authorize=AUTHORIZE_CLASSIC, goal=GOAL_JOINED_EVIDENCE, run=RUN_CLASS),
        correct=True,
    ),
    Blind(
        name="while_loop_state_dict",
        bug="run is one function with a while loop, a dict holding the spend and the tool "
            "turn's denial handled with continue; authorize uses a kind table; goal_predicate "
            "parses (label, ids) pairs first and filters them",
        cells=_cells(authorize=AUTHORIZE_TABLE, goal=GOAL_PARSED, run=RUN_WHILE),
        correct=True,
    ),
]
