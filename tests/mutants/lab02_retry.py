"""Lab 2 mutants: the retry bugs of seed 001 exercise 2, each caught by its own graded cell."""

from course.grading.proofs.mutation import Mutant

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
        loses={"jitter_spreads_wakeups", "cap_holds"},
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
        loses={"transient_errors_back_off", "gives_up_with_last_error"},
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
    loses={"transient_errors_back_off", "retry_after_honoured", "cap_holds"},
))
MUTANTS.append(Mutant(
    name="doubling_one_step_behind",
    bug="retry k waits base * 2**(k - 1), half the stated doubling value: retry 1 after "
        "base / 2 seconds",
    cell="call_with_retry",
    old="wait = min(base * 2 ** (attempt - 1), cap)",
    new="wait = min(base * 2 ** (attempt - 2), cap)",
    loses={"transient_errors_back_off", "retry_after_honoured"},
))

# -- the classification: which errors are retried, which raise after one call -----------------

EXCEPT_CLAUSE = ("except (anthropic.RateLimitError, anthropic.InternalServerError,\n"
                 "                anthropic.APIConnectionError) as err:")
RAISE_LAST = "raise  # the last error, untouched; sleeping first would only delay the caller"
BUDGET = "if attempt >= max_attempts:"
DOUBLING = "wait = min(base * 2 ** (attempt - 1), cap)"
HINT_WINS = "wait = hint  # the server knows when its window resets; doubling only guesses"
ALL = {"jitter_spreads_wakeups", "client_error_not_retried", "retry_after_honoured",
       "cap_holds", "transient_errors_back_off", "gives_up_with_last_error",
       "max_attempts_respected"}


def _retry_unless(condition: str) -> str:
    """Catch every API error, then re-raise the ones ``condition`` picks out."""
    return (f"except anthropic.APIError as err:\n            if {condition}:\n"
            "                raise")


MUTANTS += [
    Mutant(
        name="only_400_is_final",
        bug="only BadRequestError is treated as the caller's bug: a 401, 403, 404, 413 or 422 "
            "is retried four times, with sleeps",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless("isinstance(err, anthropic.BadRequestError)"),
        loses={"client_error_not_retried"},
    ),
    Mutant(
        name="fixed_client_status_list",
        bug="the client errors are a fixed list (400, 401, 403, 404), so a 413 or a 422 is "
            "retried",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless('getattr(err, "status_code", None) in (400, 401, 403, 404)'),
        loses={"client_error_not_retried"},
    ),
    Mutant(
        name="rate_limit_counted_as_client_error",
        bug="'status below 500 is the caller's bug' checked before the 429: every rate limit "
            "reaches the caller after one call",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless("isinstance(err, anthropic.APIStatusError) and err.status_code < 500"),
        loses={"jitter_spreads_wakeups", "retry_after_honoured", "transient_errors_back_off",
               "gives_up_with_last_error", "client_error_not_retried"},
    ),
    Mutant(
        name="status_list_misses_529",
        bug="the transient statuses are the usual HTTP list (429, 500, 502, 503, 504), which "
            "leaves out Anthropic's 529 overloaded",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless(
            'getattr(err, "status_code", None) not in (None, 429, 500, 502, 503, 504)'),
        loses={"transient_errors_back_off", "gives_up_with_last_error"},
    ),
    Mutant(
        name="exact_class_match",
        bug="the error's exact class is compared (type(err) in ...), so the subclasses "
            "ServiceUnavailableError (503) and OverloadedError (529) are not retried",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless(
            "type(err) not in (anthropic.RateLimitError, anthropic.InternalServerError,\n"
            "                                 anthropic.APIConnectionError)"),
        loses=ALL - {"jitter_spreads_wakeups"},
    ),
    Mutant(
        name="retries_own_exceptions",
        bug="except Exception: a KeyError or ValueError from the caller's own fn is retried "
            "like a service failure",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new="except Exception as err:\n"
            "            if isinstance(err, anthropic.APIStatusError) and not isinstance(\n"
            "                    err, (anthropic.RateLimitError, anthropic.InternalServerError)):\n"
            "                raise",
        loses={"client_error_not_retried"},
    ),
    Mutant(
        name="status_read_on_connection_error",
        bug="classifies by err.status_code, which a dropped connection does not have: "
            "AttributeError instead of a retry",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless("err.status_code != 429 and err.status_code < 500"),
        loses={"transient_errors_back_off", "gives_up_with_last_error"},
    ),
    Mutant(
        name="client_error_wrapped",
        bug="a client error is wrapped in a new ValueError instead of reaching the caller as "
            "the SDK's own exception",
        cell="call_with_retry",
        old="failure = err\n",
        new="failure = err\n"
            "        except anthropic.APIStatusError as err:\n"
            '            raise ValueError(f"request rejected ({err.status_code}): {err}") '
            "from err\n",
        loses={"client_error_not_retried"},
    ),
    # -- giving up: which error comes out -----------------------------------------------------
    Mutant(
        name="wraps_last_error",
        bug="gives up with a new RuntimeError('gave up after 5 attempts') instead of the last "
            "error itself",
        cell="call_with_retry",
        old=RAISE_LAST,
        new='raise RuntimeError(f"gave up after {attempt} attempts: {err}") from err',
        loses={"gives_up_with_last_error", "max_attempts_respected", "cap_holds"},
    ),
    Mutant(
        name="raises_first_error",
        bug="keeps the first failure and raises it at the end, not the last one",
        cell="call_with_retry",
        old=RAISE_LAST,
        new="raise first",
        patches=(("call_with_retry", "attempt += 1",
                  "attempt += 1\n            first = err if attempt == 1 else first"),),
        loses={"gives_up_with_last_error"},
    ),
    Mutant(
        name="raises_previous_error",
        bug="raises the error saved on the previous turn (the 4th of 5), and with "
            "max_attempts=1 nothing was saved yet",
        cell="call_with_retry",
        old=RAISE_LAST,
        new="raise failure",
        loses={"gives_up_with_last_error", "max_attempts_respected"},
    ),
    Mutant(
        name="returns_none_when_out_of_attempts",
        bug="runs out of attempts and returns None, so the caller never hears of the failure",
        cell="call_with_retry",
        old=RAISE_LAST,
        new="return None",
        loses={"gives_up_with_last_error"},
    ),
    # -- max_attempts --------------------------------------------------------------------------
    Mutant(
        name="zero_attempts_makes_no_call",
        bug="a `while attempt < max_attempts` loop: max_attempts=0 makes no call at all and "
            "returns None",
        cell="call_with_retry",
        old="while True:",
        new="while attempt < max_attempts:",
        loses={"max_attempts_respected"},
    ),
    Mutant(
        name="zero_attempts_unbounded",
        bug="the budget test is ==, so max_attempts=0 or below is never reached and the "
            "retries never stop",
        cell="call_with_retry",
        old=BUDGET,
        new="if attempt == max_attempts:",
        loses={"max_attempts_respected"},
    ),
    Mutant(
        name="rejects_zero_attempts",
        bug="max_attempts below 1 raises ValueError instead of behaving as 1",
        cell="call_with_retry",
        old="attempt = 0\n",
        new='if max_attempts < 1:\n        raise ValueError("max_attempts must be at least 1")\n'
            "    attempt = 0\n",
        loses={"max_attempts_respected"},
    ),
    Mutant(
        name="one_retry_too_many",
        bug="max_attempts counts the retries, not the calls: 6 calls and 5 sleeps for "
            "max_attempts=5",
        cell="call_with_retry",
        old=BUDGET,
        new="if attempt > max_attempts:",
        loses={"gives_up_with_last_error", "max_attempts_respected"},
    ),
    Mutant(
        name="gives_up_one_call_early",
        bug="off by one the other way: gives up after max_attempts - 1 calls",
        cell="call_with_retry",
        old=BUDGET,
        new="if attempt >= max_attempts - 1:",
        loses=ALL - {"jitter_spreads_wakeups", "client_error_not_retried"},
    ),
    Mutant(
        name="ignores_max_attempts",
        bug="the budget is hard-coded to 5 attempts, whatever max_attempts says",
        cell="call_with_retry",
        old=BUDGET,
        new="if attempt >= 5:",
        loses={"max_attempts_respected", "cap_holds", "transient_errors_back_off"},
    ),
    # -- the wait ------------------------------------------------------------------------------
    Mutant(
        name="first_retry_doubles",
        bug="the first retry uses k = 1, so it waits base * 2 instead of base",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = min(base * 2 ** attempt, cap)",
        loses={"transient_errors_back_off", "retry_after_honoured"},
    ),
    Mutant(
        name="linear_backoff",
        bug="the wait grows linearly, base * (k + 1): 1, 2, 3, 4 s instead of 1, 2, 4, 8 s",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = min(base * attempt, cap)",
        loses={"transient_errors_back_off"},
    ),
    Mutant(
        name="max_for_cap",
        bug="max() where min() belongs: every wait is at least the cap, 60 s",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = max(base * 2 ** (attempt - 1), cap)",
        loses={"transient_errors_back_off", "retry_after_honoured", "cap_holds"},
    ),
    Mutant(
        name="ignores_base",
        bug="the doubling starts from a hard-coded 1 s, whatever base says",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = min(1.0 * 2 ** (attempt - 1), cap)",
        loses={"transient_errors_back_off"},
    ),
    Mutant(
        name="ignores_cap_argument",
        bug="the cap is hard-coded to 60 s, whatever cap says",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = min(base * 2 ** (attempt - 1), 60.0)",
        loses={"cap_holds"},
    ),
    Mutant(
        name="doubles_the_last_wait",
        bug="each wait doubles the previous one, so after retry-after: 3 the next wait is "
            "6 s, not the doubling value 4 s",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = min(base if attempt == 1 else wait * 2, cap)",
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="retry_after_not_counted",
        bug="a retry that waited a retry-after does not count in k, so the doubling falls "
            "one step behind after it",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = min(base * 2 ** (attempt - 1 - told), cap)",
        patches=(("call_with_retry", "attempt = 0\n", "attempt = told = 0\n"),
                 ("call_with_retry", HINT_WINS, "wait = hint\n            told += 1")),
        loses={"retry_after_honoured"},
    ),
    # -- retry-after -----------------------------------------------------------------------------
    Mutant(
        name="retry_after_only_if_longer",
        bug="max(retry-after, doubling value): a retry-after of 2 s after three 503s still "
            "waits 8 s",
        cell="call_with_retry",
        old=HINT_WINS,
        new="wait = max(hint, wait)",
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="retry_after_added",
        bug="the retry-after is added to the doubling value instead of replacing it",
        cell="call_with_retry",
        old=HINT_WINS,
        new="wait += hint",
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="connection_error_has_no_response",
        bug="reads err.response.headers on every error, but a dropped connection has no "
            "response: AttributeError instead of a retry",
        cell="call_with_retry",
        old='headers = getattr(getattr(failure, "response", None), "headers", None) or {}',
        new="headers = failure.response.headers",
        loses={"transient_errors_back_off"},
    ),
    Mutant(
        name="retry_after_header_required",
        bug="headers['retry-after'] with no default: a 429 without the header, or a 503, "
            "raises KeyError",
        cell="call_with_retry",
        old='hint = float(headers.get("retry-after", ""))',
        new='hint = float(headers["retry-after"])',
        loses=ALL,
    ),
    # -- what is returned ----------------------------------------------------------------------
    Mutant(
        name="returns_nothing",
        bug="the successful call's result is dropped: call_with_retry returns None",
        cell="call_with_retry",
        old="return fn()",
        new="fn()\n            return",
        loses={"transient_errors_back_off"},
    ),
    Mutant(
        name="returns_text",
        bug="returns the reply's text instead of whatever fn() returned",
        cell="call_with_retry",
        old="return fn()",
        new='reply = fn()\n            return "".join(b.text for b in reply.content '
            'if b.type == "text")',
        loses={"transient_errors_back_off"},
    ),
]

# -- every status, every retried class ---------------------------------------------------------
HEADERS = 'headers = getattr(getattr(failure, "response", None), "headers", None) or {}'
PARSE = 'hint = float(headers.get("retry-after", ""))'
STATUS_FIRST = "isinstance(err, anthropic.APIStatusError) and not isinstance(\n" \
    "                    err, (anthropic.RateLimitError, anthropic.InternalServerError))"

MUTANTS += [
    Mutant(
        name="only_named_5xx_retried",
        bug="the transient statuses are the three the lab names (429, 500, 503, 529), so a "
            "502, a 504 or any other 5xx reaches the caller after one call",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless('getattr(err, "status_code", None) not in (None, 429, 500, 503, 529)'),
        loses={"transient_errors_back_off"},
    ),
    Mutant(
        name="sdk_status_list",
        bug="the SDK's own retry list copied (408, 409, 429, 5xx): a 408 or a 409 is retried, "
            "with sleeps, although the lab leaves them to the caller",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless("isinstance(err, anthropic.APIStatusError) and err.status_code not in "
                          "(408, 409, 429) and err.status_code < 500"),
        loses={"client_error_not_retried"},
    ),
    Mutant(
        name="named_client_classes_only",
        bug="only the SDK's named 4xx classes are final; a status with no class of its own "
            "(405, 410, 451, a plain APIStatusError) is retried",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless(
            "isinstance(err, (anthropic.BadRequestError, anthropic.AuthenticationError,\n"
            "                                anthropic.PermissionDeniedError, "
            "anthropic.NotFoundError,\n"
            "                                anthropic.ContentTooLargeError, "
            "anthropic.ConflictError,\n"
            "                                anthropic.RequestTimeoutError,\n"
            "                                anthropic.UnprocessableEntityError))"),
        loses={"client_error_not_retried"},
    ),
    Mutant(
        name="validation_error_retried",
        bug="every APIError is caught and only the non-transient status errors re-raised, so "
            "an APIResponseValidationError is retried like a dropped connection",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=_retry_unless(STATUS_FIRST),
        loses={"client_error_not_retried"},
    ),
    Mutant(
        name="timeout_not_retried",
        bug="a timed-out request (APITimeoutError, a subclass of APIConnectionError) is taken "
            "for a request too slow to fix by retrying and raised after one call",
        cell="call_with_retry",
        old=EXCEPT_CLAUSE,
        new=EXCEPT_CLAUSE + "\n            if isinstance(err, anthropic.APITimeoutError):\n"
                            "                raise",
        loses={"transient_errors_back_off"},
    ),
    Mutant(
        name="rate_limits_not_counted",
        bug="a 429 does not use up an attempt: a key that stays rate limited is retried "
            "forever and the caller never hears of it",
        cell="call_with_retry",
        old=BUDGET,
        new="if attempt - limited >= max_attempts:",
        patches=(("call_with_retry", "attempt = 0\n", "attempt = limited = 0\n"),
                 ("call_with_retry", "attempt += 1",
                  "attempt += 1\n"
                  "            limited += isinstance(err, anthropic.RateLimitError)")),
        loses={"gives_up_with_last_error"},
    ),
    # -- retry-after, on every error that sends it -------------------------------------------
    Mutant(
        name="retry_after_only_on_429",
        bug="the retry-after header is read on a RateLimitError only: a 503 or 529 that sent "
            "one waits the doubling value",
        cell="call_with_retry",
        old=HEADERS,
        new="headers = failure.response.headers if isinstance(\n"
            "            failure, anthropic.RateLimitError) else {}",
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="retry_after_int",
        bug="int() on the header: a fractional retry-after such as 1.5 fails to parse and the "
            "doubling value is slept instead",
        cell="call_with_retry",
        old=PARSE,
        new='hint = int(headers.get("retry-after", ""))',
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="stale_retry_after",
        bug="the last retry-after seen is kept: after a 429 that said 5 s, every later retry "
            "waits 5 s, not its doubling value",
        cell="call_with_retry",
        old="hint = 0.0  # no header, or a form we do not parse: keep the doubling value",
        new="pass  # no header: keep the hint from before",
        patches=(("call_with_retry", "attempt = 0\n", "attempt = 0\n    hint = 0.0\n"),),
        loses={"retry_after_honoured"},
    ),
    Mutant(
        name="jitter_from_doubling_under_retry_after",
        bug="the jitter is drawn from the doubling value even under a retry-after: after three "
            "503s a retry-after of 2 s sleeps up to 2 + 2.4 s",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait + random.uniform(0, JITTER * min(base * 2 ** (attempt - 1), cap)))",
        loses={"retry_after_honoured", "jitter_spreads_wakeups"},
    ),
    # -- the cap and the jitter --------------------------------------------------------------
    Mutant(
        name="cap_after_jitter",
        bug="the jittered doubling value is capped, so once the cap engages every sleep is "
            "exactly the cap and the herd wakes together again",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait + random.uniform(0, JITTER * wait) if hint > 0 else\n"
            "              min(wait * (1 + random.uniform(0, JITTER)), cap))",
        loses={"cap_holds"},
    ),
    Mutant(
        name="cap_on_multiplier",
        bug="the cap limits 2**k, not base * 2**k: with base 0.5 and cap 3 the wait stops at "
            "1.5 s",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = min(2 ** (attempt - 1), cap) * base",
        loses={"cap_holds"},
    ),
    Mutant(
        name="back_to_base_past_cap",
        bug="past the cap the wait starts over from base instead of staying at the cap",
        cell="call_with_retry",
        old=DOUBLING,
        new="wait = base * 2 ** (attempt - 1)\n        wait = wait if wait <= cap else base",
        loses={"cap_holds"},
    ),
    Mutant(
        name="jitter_in_seconds",
        bug="the jitter is a fixed 0-0.3 s, not 30% of the wait: the herd is spread in the "
            "first round only",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait + random.uniform(0, JITTER))",
        loses={"jitter_spreads_wakeups", "transient_errors_back_off"},
    ),
    Mutant(
        name="jitter_too_narrow",
        bug="1% jitter: every sleep differs, but 20 clients still wake inside a few "
            "milliseconds of each other",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait + random.uniform(0, 0.01 * wait))",
        loses={"jitter_spreads_wakeups"},
    ),
    Mutant(
        name="jitter_first_retry_only",
        bug="jitter on the first retry only: from retry 2 on the herd wakes together again",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait + (random.uniform(0, JITTER * wait) if attempt == 1 else 0))",
        loses={"jitter_spreads_wakeups", "cap_holds"},
    ),
    Mutant(
        name="sleeps_with_time_sleep",
        bug="the wait goes to time.sleep, not to the sleep the caller passed (here shortened "
            "so the run stays fast): the caller's clock never sees a wait",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="time.sleep(min(0.001, wait))",
        loses=ALL - {"client_error_not_retried", "max_attempts_respected"},
    ),
    Mutant(
        name="jitter_too_wide",
        bug="jitter of up to 60% of the wait, above the 1.3 x wait the lab allows",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait + random.uniform(0, 0.6 * wait))",
        loses={"retry_after_honoured", "cap_holds", "transient_errors_back_off"},
    ),
    Mutant(
        name="jitter_never_near_the_wait",
        bug="without a retry-after every sleep is drawn from [0, wait / 2], so no sleep before "
            "retry k comes near its doubling value",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait + random.uniform(0, JITTER * wait) if hint > 0 "
            "else random.uniform(0, 0.5 * wait))",
        loses={"retry_after_honoured", "cap_holds", "transient_errors_back_off"},
    ),
    Mutant(
        name="retry_after_slept_exactly",
        bug="the server's retry-after slept as it came, with no jitter on top, so clients told "
            "the same value all wake together",
        cell="call_with_retry",
        old=JITTERED_SLEEP,
        new="sleep(wait if hint > 0 else wait + random.uniform(0, JITTER * wait))",
        loses={"jitter_spreads_wakeups"},
    ),
]
