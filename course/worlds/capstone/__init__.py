"""The capstone's world: a support-ticket triage desk, its scripted model, the guard bundle the
integrated loop is handed, deliberately simple stand-in guards, and recording test doubles.

* :class:`Desk` holds two tenants' accounts, orders and documents, and the side effects of the
  three write tools (emails sent, refunds issued, accounts updated). A human confirms a write
  in the support console with :meth:`Desk.approve`; :meth:`Desk.approved` is that channel.
* :func:`triage_api` is the fake API: a scripted triage model behind a prompt cache
  (``course.promptcache``), so every reply is billed with cache writes and reads.
* :class:`Guards` and :class:`Agent` are the bundle the loop receives; :func:`stand_in_guards`
  fills it with simple pieces that are **not** the answers of the earlier labs (an exact-match
  cache, a fixed-wait retry, a budget that ignores cache discounts, a ledger that prices
  nothing, a repeat-only loop guard, an in-memory offloader).
* :func:`doubles` fills it with recording doubles whose decisions a test scripts, all writing
  to one :class:`Log`, so a test can assert the order in which the loop called them. The
  model's replies are a list, so the grader can serve the fake (:func:`script_api`) and
  judge its own request log; each model call is still logged in order as the request leaves
  the client (:class:`ModelCalls`).

Nothing here runs an agent loop, prices a token for a report, or decides authorization or
whether an answer is done: those are the notebook's to write.

One module a job: :mod:`.desk` (the tenants' data, the tools and the agent), :mod:`.model`
(the scripted triage model), :mod:`.guards` (the bundle and its stand-ins) and
:mod:`.doubles` (the recording doubles). Every public name is importable from here.
"""

from __future__ import annotations

from .desk import (
    ANSWER_1_TOKENS,
    FEEDBACK_TOKENS,
    GRACE_RESULT,
    GROWTH,
    LOOPY_TICKET,
    MODEL,
    NO_CLAIMS,
    OUTPUT,
    PREFIX_TOKENS,
    READ_LINES,
    READ_ONLY,
    REFUND_DOCS,
    REFUND_TICKET,
    ROTATE_TICKET,
    SEARCH_DUMP,
    SYSTEM_HEADER,
    SYSTEM_TEXT,
    TENANTS,
    TICKET_TOKENS,
    TOOLS,
    UNVERIFIED,
    WRITE,
    Agent,
    Desk,
    place_breakpoints,
    triage_agent,
)
from .doubles import (
    DOUBLE_TOOLS,
    Doubles,
    Log,
    ModelCalls,
    Script,
    ScriptExhausted,
    answer,
    bad_request,
    calls,
    doubles,
    refusal,
    script_api,
    user_messages_with_results,
)
from .guards import (
    TRANSIENT,
    BudgetExceeded,
    ExactCache,
    FixedRetry,
    Guards,
    MemoryOffloader,
    RepeatGuard,
    RoughBudget,
    TokenLog,
    cacheable_unless_personal,
    stand_in_guards,
    stand_in_pointer,
)
from .model import (
    FINAL_ANSWER,
    FIRST_ANSWER_CLAIMS,
    REFUND_DENIED_ANSWER,
    REFUND_DONE_ANSWER,
    TriageModel,
    refund_request_turn,
    triage_api,
)

__all__ = [
    "ANSWER_1_TOKENS",
    "Agent",
    "BudgetExceeded",
    "DOUBLE_TOOLS",
    "Desk",
    "Doubles",
    "ExactCache",
    "FEEDBACK_TOKENS",
    "FINAL_ANSWER",
    "FIRST_ANSWER_CLAIMS",
    "FixedRetry",
    "GRACE_RESULT",
    "GROWTH",
    "Guards",
    "LOOPY_TICKET",
    "Log",
    "MODEL",
    "MemoryOffloader",
    "ModelCalls",
    "NO_CLAIMS",
    "OUTPUT",
    "PREFIX_TOKENS",
    "READ_LINES",
    "READ_ONLY",
    "REFUND_DENIED_ANSWER",
    "REFUND_DOCS",
    "REFUND_DONE_ANSWER",
    "REFUND_TICKET",
    "ROTATE_TICKET",
    "RepeatGuard",
    "RoughBudget",
    "SEARCH_DUMP",
    "SYSTEM_HEADER",
    "SYSTEM_TEXT",
    "Script",
    "ScriptExhausted",
    "TENANTS",
    "TICKET_TOKENS",
    "TOOLS",
    "TRANSIENT",
    "TokenLog",
    "TriageModel",
    "UNVERIFIED",
    "WRITE",
    "answer",
    "bad_request",
    "cacheable_unless_personal",
    "calls",
    "doubles",
    "place_breakpoints",
    "refund_request_turn",
    "refusal",
    "script_api",
    "stand_in_guards",
    "stand_in_pointer",
    "triage_agent",
    "triage_api",
    "user_messages_with_results",
]
