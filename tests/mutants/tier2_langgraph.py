"""Tier 2 mutants: one per property the framework changes, from seed 001's LangGraph tiers."""

from course.grading.mutation import Mutant

MUTANTS = [
    Mutant(
        name="resume_by_resending_goal",
        bug="seed 001 ex.1 tier 2: a crashed thread restarted with the goal instead of None; "
            "the model starts over and the lookup runs twice",
        cell="resume",
        old="out = app.invoke(None, config)",
        new='out = app.invoke({"messages": [HumanMessage(goal)]}, config)',
        loses={"resume_no_duplicate", "approval_before_write"},
    ),
    Mutant(
        name="approval_after_write",
        bug="seed 001 ex.1 tier 2: the human-approval pause placed after the write tool runs",
        cell="resume",
        old='interrupt_before=["approved_tools"]',
        new='interrupt_after=["approved_tools"]',
        loses={"approval_before_write"},
    ),
    Mutant(
        name="retry_on_every_status",
        bug="seed 001 ex.2 tier 2: retry_on accepts every API error, so a 400 is retried "
            "(what RetryPolicy's default retry_on does)",
        cell="retry",
        old="return exc.status_code >= 500",
        new="return True",
        loses={"no_retry_400"},
    ),
    Mutant(
        name="429_classed_as_client_error",
        bug="seed 001 ex.2: status < 500 treated as a client error before 429 is checked",
        cell="retry",
        old="if isinstance(exc, anthropic.RateLimitError):",
        new="if False:",
        loses={"retries_429"},
    ),
    Mutant(
        name="spent_overwritten",
        bug="seed 001 ex.3 tier 2: spent has no reducer, so each call overwrites the total",
        cell="budget",
        old="spent: Annotated[float, operator.add]",
        new="spent: float",
        loses={"reducer_adds"},
    ),
    Mutant(
        name="halt_only_over_limit",
        bug="seed 001 ex.3: the budget edge halts only strictly over the limit",
        cell="budget",
        old='if state["spent"] >= limit_usd:',
        new='if state["spent"] > limit_usd:',
        loses={"routes_at_limit"},
    ),
    Mutant(
        name="halt_without_nudge",
        bug="seed 001 ex.4 tier 2: the guard halts on its first trip; the model is never nudged",
        cell="guard",
        old="if nudged:",
        new="if True:",
        loses={"nudge_then_halt"},
    ),
    Mutant(
        name="guard_is_a_step_cap",
        bug="seed 001 ex.4 tier 2: the guard counts tool calls, not identical ones, like "
            "recursion_limit; a long honest task is halted",
        cell="guard",
        old="if max(seen[identity(c)] for c in asked[-1].tool_calls) < repeat:",
        new="if sum(seen.values()) < repeat:",
        loses={"distinct_calls_pass"},
    ),
    Mutant(
        name="cache_default_namespace",
        bug="seed 001 ex.5 tier 2: the cache node ignores the tenant in the state and looks "
            "up and stores in the default namespace",
        cell="cache",
        old='hit = cache.get(question, namespace=state["tenant"])',
        new="hit = cache.get(question)",
        patches=(("cache", 'namespace=state["tenant"])\n    return {}', ")\n    return {}"),),
        loses={"tenant_isolated"},
    ),
    Mutant(
        name="cache_hit_still_calls_model",
        bug="seed 001 ex.5 tier 2: the route after the cache node always goes to the agent",
        cell="cache",
        old='return END if state["cache_hit"] else "agent"',
        new='return "agent"',
        loses={"hit_skips_model"},
    ),
    Mutant(
        name="offload_known_tools_only",
        bug="seed 001 ex.8 tier 2: offloading keyed to the tools known when the node was "
            "written, so a tool added later floods the context",
        cell="offload",
        old='if m.name == "read_artifact" or len(content) <= threshold:',
        new='if m.name not in ("search_docs", "lookup_order") or len(content) <= threshold:',
        loses={"later_tool_offloaded"},
    ),
    Mutant(
        name="containment_by_prefix",
        bug="seed 001 ex.8: containment checked with startswith(root), so root + '-evil' "
            "passes",
        cell="offload",
        old="if os.path.commonpath([real, base]) != base:",
        new="if not real.startswith(base):",
        loses={"containment_through_node"},
    ),
    Mutant(
        name="reader_offloaded_again",
        bug="seed 001 ex.8 tier 2: the tool node offloads read_artifact's own window too",
        cell="offload",
        old='if m.name == "read_artifact" or len(content) <= threshold:',
        new="if len(content) <= threshold:",
        loses={"containment_through_node"},
    ),
    Mutant(
        name="reader_negative_offset_slices",
        bug="read_artifact passes offset and limit straight to the slice, so offset=-5 reads "
            "the last lines instead of refusing",
        cell="offload",
        old="if type(value) is not int or value < 0:",
        new="if False:",
        loses={"containment_through_node"},
    ),
    Mutant(
        name="reader_missing_file_raises",
        bug="read_artifact lets FileNotFoundError out for a missing file inside root",
        cell="offload",
        old="except OSError as err:",
        new="except PermissionError as err:",
        loses={"containment_through_node"},
    ),
]
