"""Lab 2 mutants: the retry bugs of seed 001 exercise 2, each caught by its own graded cell."""

from course.grading.mutation import Mutant

JITTERED_SLEEP = "sleep(wait + random.uniform(0, JITTER * wait))"
CLASSIFIED = "except (anthropic.RateLimitError, anthropic.InternalServerError,"

MUTANTS = [
    Mutant(
        name="no_jitter",
        bug="seed 001 ex.2: retries without jitter keep the herd synchronised (20 wake-ups "
            "in one instant every round)",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait)",
        loses={"jitter_spreads_wakeups"},
    ),
    Mutant(
        name="retries_400",
        bug="seed 001 ex.2: a 400 is retried, buying five identical errors and 15 s of delay",
        cell="call_with_retry",
        old=CLASSIFIED,
        new="except (anthropic.RateLimitError, anthropic.APIStatusError,",
        loses={"client_error_not_retried"},
    ),
    Mutant(
        name="ignores_retry_after",
        bug="seed 001 ex.2 test 3: retry-after ignored, so a 429 saying 7 s sleeps the "
            "doubling value of 1 s and retries into the closed window",
        cell="call_with_retry",
        old="if hint > 0:",
        new="if False:  # the retry-after header is never consulted",
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="no_cap",
        bug="seed 001 ex.2 test 4: doubling with no cap; retry 8 would sleep 2**8 = 256 s",
        cell="call_with_retry",
        old="wait = min(base * 2 ** (attempt - 1), cap)",
        new="wait = base * 2 ** (attempt - 1)",
        loses={"cap_holds"},
    ),
    Mutant(
        name="full_jitter",
        bug="seed 001 ex.2: full jitter uniform(0, wait) also under a retry-after, so every "
            "retry lands inside the window the server announced (below the doubling value "
            "it is allowed)",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(random.uniform(0, wait))",
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="unbounded_attempts",
        bug="seed 001 ex.2: attempts never bounded; a dead service is retried forever and "
            "the last error never reaches the caller",
        cell="call_with_retry",
        old="if attempt >= max_attempts:",
        new="if False:  # no attempt budget",
        loses={"gives_up_with_last_error", "max_attempts_respected"},
    ),
    Mutant(
        name="only_503_retried",
        bug="only ServiceUnavailableError is treated as transient: a 500 or a 529 "
            "overloaded reaches the caller after one call",
        cell="call_with_retry",
        old=CLASSIFIED,
        new="except (anthropic.RateLimitError, anthropic.ServiceUnavailableError,",
        loses={"transient_errors_back_off"},
    ),
    Mutant(
        name="sleeps_before_giving_up",
        bug="seed 001 ex.2 tier 3: sleeps once more after the final failure, delaying the "
            "caller by up to 16 x 1.3 s with the defaults",
        cell="call_with_retry",
        old="raise  # the last error, untouched; sleeping first would only delay the caller",
        new="sleep(min(base * 2 ** (attempt - 1), cap))\n                raise",
        loses={"gives_up_with_last_error"},
    ),
]
MUTANTS.append(Mutant(
    name="cap_limits_retry_after",
    bug="the cap applied to the server's retry-after: retry-after 90 with cap 60 sleeps 60 "
        "and retries into the closed window",
    cell="call_with_retry",
    old="wait = hint  # the server knows when its window resets; doubling only guesses",
    new="wait = min(hint, cap)",
    loses={"retry_after_honoured"},
))
MUTANTS.append(Mutant(
    name="sdk_jitter_under_retry_after",
    bug="the SDK's own jitter, wait * (1 - 0.25 * random()), applied to the server's "
        "retry-after too: up to a quarter of the window early",
    cell="call_with_retry",
    old=JITTERED_SLEEP,
    new="sleep(wait * (1 - 0.25 * random.random()))",
    loses={"retry_after_honoured"},
))
MUTANTS.append(Mutant(
    name="no_doubling",
    bug="the wait never doubles: every retry sleeps about base seconds, so a service down "
        "for a minute is hit every second",
    cell="call_with_retry",
    old="wait = min(base * 2 ** (attempt - 1), cap)",
    new="wait = min(base, cap)",
    loses={"transient_errors_back_off"},
))
MUTANTS.append(Mutant(
    name="doubling_one_step_behind",
    bug="retry k waits base * 2**(k - 1), half the stated doubling value: retry 1 after "
        "base / 2 seconds",
    cell="call_with_retry",
    old="wait = min(base * 2 ** (attempt - 1), cap)",
    new="wait = min(base * 2 ** (attempt - 2), cap)",
    loses={"transient_errors_back_off"},
))
