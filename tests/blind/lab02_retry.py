"""Blind samples for lab02_retry: written from the release notebook alone."""

from course.grading.proofs.blind import Blind


def _patch(source: str, *edits: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` edit applied; each ``old`` must occur exactly once."""
    for old, new in edits:
        found = source.count(old)
        if found != 1:
            raise ValueError(f"blind edit target occurs {found} times, not once: {old!r}")
        source = source.replace(old, new)
    return source


# The obvious solution; every bug below is this cell with ONE deviation edited in.
RETRY = r'''import random
import time

import anthropic

JITTER = 0.3  # each sleep is drawn from [wait, wait * (1 + JITTER)]

TRANSIENT = (anthropic.RateLimitError, anthropic.InternalServerError,
             anthropic.APIConnectionError)


def _retry_after(err):
    """The server's retry-after in seconds, or None when the error carries none."""
    response = getattr(err, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def call_with_retry(fn, max_attempts=5, base=1.0, cap=60.0, *, sleep=time.sleep):
    """Call ``fn()``; retry infrastructure failures with capped exponential backoff and jitter."""
    attempts = max(1, max_attempts)
    for k in range(attempts):
        try:
            return fn()
        except TRANSIENT as err:
            if k == attempts - 1:
                raise
            told = _retry_after(err)
            wait = told if told is not None else min(base * 2**k, cap)
            sleep(wait + random.uniform(0, JITTER * wait))
'''

# A while loop, classification by status code, and the jitter as a factor.
RETRY_STATUS = r'''import random
import time

import anthropic

JITTER = 0.3  # each sleep is drawn from [wait, wait * (1 + JITTER)]


def _transient(err):
    """True for failures that are the service's problem: 429, any 5xx, a dropped connection."""
    if isinstance(err, anthropic.APIConnectionError):
        return True
    if isinstance(err, anthropic.APIStatusError):
        return err.status_code == 429 or err.status_code >= 500
    return False


def _server_wait(err):
    """Seconds from a retry-after header, or None."""
    response = getattr(err, "response", None)
    header = None if response is None else response.headers.get("retry-after")
    try:
        return None if header is None else float(header)
    except ValueError:
        return None


def call_with_retry(fn, max_attempts=5, base=1.0, cap=60.0, *, sleep=time.sleep):
    """Call ``fn()``; retry infrastructure failures with capped exponential backoff and jitter."""
    budget = max_attempts if max_attempts >= 1 else 1
    made = 0
    while True:
        try:
            return fn()
        except anthropic.APIError as err:
            made += 1
            if not _transient(err) or made >= budget:
                raise
            retry = made - 1  # k = 0 before the first retry
            wait = _server_wait(err)
            if wait is None:
                wait = min(base * 2**retry, cap)
            sleep(wait * (1 + random.uniform(0, JITTER)))
'''

# The waits planned up front; the last attempt has no wait, so it raises.
RETRY_SCHEDULE = r'''import random
import time

import anthropic

JITTER = 0.3  # each sleep is drawn from [wait, wait * (1 + JITTER)]

RETRYABLE = (anthropic.RateLimitError, anthropic.InternalServerError,
             anthropic.APIConnectionError)


def call_with_retry(fn, max_attempts=5, base=1.0, cap=60.0, *, sleep=time.sleep):
    """Call ``fn()``; retry infrastructure failures with capped exponential backoff and jitter."""
    backoff = [min(base * 2**k, cap) for k in range(max(max_attempts, 1) - 1)]
    for planned in [*backoff, None]:
        try:
            return fn()
        except RETRYABLE as err:
            if planned is None:
                raise
            response = getattr(err, "response", None)
            header = response.headers.get("retry-after") if response is not None else None
            wait = planned if header is None else float(header)
            sleep(wait + random.uniform(0, JITTER * wait))
'''

BLIND = [
    Blind(
        name="status_below_500_raised_first",
        bug="failures are classified by status alone: any status below 500 is raised as the "
            "caller's bug, and since 429 < 500 a rate limit is never retried",
        cells={"call_with_retry": _patch(RETRY, (
            "        except TRANSIENT as err:\n",
            "        except anthropic.APIError as err:\n"
            "            status = getattr(err, \"status_code\", None)\n"
            "            if status is not None and status < 500:\n"
            "                raise\n"))},
    ),
    Blind(
        name="connection_error_not_retried",
        bug="APIConnectionError (a dropped connection) is missing from the retried errors, so "
            "it is raised after one call",
        cells={"call_with_retry": _patch(RETRY, (
            "TRANSIENT = (anthropic.RateLimitError, anthropic.InternalServerError,\n"
            "             anthropic.APIConnectionError)",
            "TRANSIENT = (anthropic.RateLimitError, anthropic.InternalServerError)"))},
    ),
    Blind(
        name="conflict_409_retried",
        bug="409 ConflictError is retried as well (as the SDK's own retry does), though the "
            "notebook says every other APIStatusError is raised after one call",
        cells={"call_with_retry": _patch(RETRY, (
            "             anthropic.APIConnectionError)",
            "             anthropic.APIConnectionError, anthropic.ConflictError)"))},
    ),
    Blind(
        name="symmetric_jitter",
        bug="jitter is centred on the wait (+/- 15%), so sleeps can fall below the wait "
            "instead of staying in [wait, 1.3 x wait]",
        cells={"call_with_retry": _patch(RETRY, (
            "sleep(wait + random.uniform(0, JITTER * wait))",
            "sleep(wait + random.uniform(-JITTER / 2 * wait, JITTER / 2 * wait))"))},
    ),
    Blind(
        name="jitter_inside_cap",
        bug="the jittered backoff is capped, instead of capping the doubling and adding "
            "jitter on top, so once the cap engages every client sleeps exactly cap",
        cells={"call_with_retry": _patch(RETRY, (
            "            wait = told if told is not None else min(base * 2**k, cap)\n"
            "            sleep(wait + random.uniform(0, JITTER * wait))\n",
            "            if told is not None:\n"
            "                sleep(told + random.uniform(0, JITTER * told))\n"
            "            else:\n"
            "                sleep(min(base * 2**k * (1 + random.uniform(0, JITTER)), cap))\n"))},
    ),
    Blind(
        name="retry_after_capped",
        bug="the cap is applied to the server's retry-after too, so retry-after: 90 with "
            "cap=60 waits 60 instead of 90",
        cells={"call_with_retry": _patch(RETRY, (
            "wait = told if told is not None else min(base * 2**k, cap)",
            "wait = min(told if told is not None else base * 2**k, cap)"))},
    ),
    Blind(
        name="retry_after_as_floor",
        bug="retry-after is used as a minimum, max(retry_after, backoff), instead of "
            "replacing the doubling value: a short retry-after late in the run waits the "
            "longer backoff",
        cells={"call_with_retry": _patch(RETRY, (
            "wait = told if told is not None else min(base * 2**k, cap)",
            "wait = min(base * 2**k, cap)\n"
            "            if told is not None:\n"
            "                wait = max(wait, told)"))},
    ),
    Blind(
        name="retry_after_without_jitter",
        bug="the server's retry-after is slept exactly, with no jitter on top, so clients "
            "told the same value all wake together",
        cells={"call_with_retry": _patch(RETRY, (
            "            wait = told if told is not None else min(base * 2**k, cap)\n"
            "            sleep(wait + random.uniform(0, JITTER * wait))\n",
            "            if told is not None:\n"
            "                sleep(told)\n"
            "            else:\n"
            "                wait = min(base * 2**k, cap)\n"
            "                sleep(wait + random.uniform(0, JITTER * wait))\n"))},
    ),
    Blind(
        name="backoff_starts_at_double",
        bug="the exponent starts at 1, so the wait before the first retry is base * 2, not "
            "base * 2**0 = base",
        cells={"call_with_retry": _patch(RETRY, (
            "min(base * 2**k, cap)", "min(base * 2 ** (k + 1), cap)"))},
    ),
    Blind(
        name="sleeps_after_final_failure",
        bug="the wait is slept before checking whether attempts are left, so the last "
            "failure is raised only after one more useless sleep",
        cells={"call_with_retry": _patch(
            RETRY,
            ("            if k == attempts - 1:\n                raise\n", ""),
            ("            sleep(wait + random.uniform(0, JITTER * wait))\n",
             "            sleep(wait + random.uniform(0, JITTER * wait))\n"
             "            if k == attempts - 1:\n                raise\n"),
        )},
    ),
    Blind(
        name="zero_attempts_makes_no_call",
        bug="max_attempts is used as given, so max_attempts=0 makes no call and returns None "
            "instead of behaving as 1",
        cells={"call_with_retry": _patch(RETRY, (
            "attempts = max(1, max_attempts)", "attempts = max_attempts"))},
    ),
    Blind(
        name="final_error_wrapped",
        bug="when every attempt failed, a RuntimeError wrapping the last error is raised "
            "instead of the last error itself",
        cells={"call_with_retry": _patch(RETRY, (
            "            if k == attempts - 1:\n                raise\n",
            "            if k == attempts - 1:\n"
            "                raise RuntimeError(f\"gave up after {attempts} attempts\") "
            "from err\n"))},
    ),
    Blind(
        name="while_status_codes",
        bug="correct: a while loop, transient errors recognised by status code (429 or >= 500) "
            "or connection error, and the jitter written as wait * (1 + uniform(0, 0.3))",
        cells={"call_with_retry": RETRY_STATUS},
        correct=True,
    ),
    Blind(
        name="planned_schedule",
        bug="correct: the capped waits are planned up front and the final attempt is the "
            "entry with no wait, so it raises instead of sleeping",
        cells={"call_with_retry": RETRY_SCHEDULE},
        correct=True,
    ),
]

# Recursion on the remaining budget, classification by a match statement, and the jitter
# drawn directly from [wait, wait * (1 + JITTER)].
RETRY_RECURSIVE = r'''import random
import time

import anthropic

JITTER = 0.3  # each sleep is drawn from [wait, wait * (1 + JITTER)]


def _service_fault(err):
    """True for the failures the harness fixes: 429, any 5xx, a dropped or timed-out call."""
    match err:
        case (anthropic.RateLimitError() | anthropic.InternalServerError()
              | anthropic.APIConnectionError()):
            return True
        case _:
            return False


def _announced(err):
    """The retry-after the server sent, in seconds, or None."""
    response = getattr(err, "response", None)
    raw = None if response is None else response.headers.get("retry-after")
    try:
        return float(raw)
    except (TypeError, ValueError):
        return None


def _attempt(fn, left, k, base, cap, sleep):
    """Call fn once; on a service fault with budget left, wait and recurse for retry k."""
    try:
        return fn()
    except Exception as err:
        if left <= 1 or not _service_fault(err):
            raise
        told = _announced(err)
    wait = min(base * 2**k, cap) if told is None else told
    sleep(random.uniform(wait, wait * (1 + JITTER)))
    return _attempt(fn, left - 1, k + 1, base, cap, sleep)


def call_with_retry(fn, max_attempts=5, base=1.0, cap=60.0, *, sleep=time.sleep):
    """Call ``fn()``; retry infrastructure failures with capped exponential backoff and jitter."""
    return _attempt(fn, max(max_attempts, 1), 0, base, cap, sleep)
'''

BLIND += [
    Blind(
        name="retry_after_parsed_as_int",
        bug="the retry-after header is parsed with int(), so a fractional value such as 1.5 "
            "fails to parse and the doubling value is slept instead; the notebook says the "
            "value may be fractional",
        cells={"call_with_retry": _patch(RETRY, (
            "        return float(value)\n", "        return int(value)\n"))},
    ),
    Blind(
        name="retry_after_carried_forward",
        bug="the last retry-after seen is remembered and reused for later retries that sent "
            "none, though the server's value applies to its own retry only (429 with "
            "retry-after: 5, then a bare 503, must wait min(base * 2, cap) before retry 1)",
        cells={"call_with_retry": _patch(
            RETRY,
            ("    attempts = max(1, max_attempts)\n",
             "    attempts = max(1, max_attempts)\n    server_said = None\n"),
            ("            told = _retry_after(err)\n",
             "            told = _retry_after(err)\n"
             "            if told is None:\n"
             "                told = server_said\n"
             "            server_said = told\n"),
        )},
    ),
    Blind(
        name="k_counts_doubling_retries_only",
        bug="the doubling exponent advances only on retries that used the doubling value, "
            "so a retry that waited a retry-after is not counted; the notebook says k numbers "
            "the retries, whichever wait each one used",
        cells={"call_with_retry": _patch(
            RETRY,
            ("    attempts = max(1, max_attempts)\n",
             "    attempts = max(1, max_attempts)\n    doubled = 0\n"),
            ("            wait = told if told is not None else min(base * 2**k, cap)\n",
             "            if told is not None:\n"
             "                wait = told\n"
             "            else:\n"
             "                wait = min(base * 2**doubled, cap)\n"
             "                doubled += 1\n"),
        )},
    ),
    Blind(
        name="backoff_history_shared_across_calls",
        bug="the retry count lives in a helper's mutable default list, so it is kept across "
            "calls of call_with_retry: a second call starts past retry 0 instead of waiting "
            "min(base * 2**k, cap) from k = 0",
        cells={"call_with_retry": _patch(
            RETRY,
            ("def call_with_retry(",
             "def _backoff(base, cap, history=[]):\n"
             "    \"\"\"The doubling value for the next retry; history: the waits so far.\"\"\"\n"
             "    wait = min(base * 2**len(history), cap)\n"
             "    history.append(wait)\n"
             "    return wait\n\n\n"
             "def call_with_retry("),
            ("            wait = told if told is not None else min(base * 2**k, cap)\n",
             "            doubling = _backoff(base, cap)\n"
             "            wait = told if told is not None else doubling\n"),
        )},
    ),
    Blind(
        name="timeout_treated_as_408",
        bug="an APITimeoutError is raised at once as if it were a 408, though the notebook "
            "retries every APIConnectionError, its subclass APITimeoutError included",
        cells={"call_with_retry": _patch(RETRY, (
            "        except TRANSIENT as err:\n",
            "        except TRANSIENT as err:\n"
            "            if isinstance(err, anthropic.APITimeoutError):\n"
            "                raise  # a timed-out request is a 408: the caller's to fix\n"))},
    ),
    Blind(
        name="only_listed_5xx_retried",
        bug="only the statuses named in the table (429, 500, 503, 529) are retried, so a 502, "
            "504, 501 or 507 is raised after one call; every InternalServerError, every status "
            "from 500 up, must be retried",
        cells={"call_with_retry": _patch(
            RETRY,
            ("TRANSIENT = (anthropic.RateLimitError, anthropic.InternalServerError,\n"
             "             anthropic.APIConnectionError)",
             "TRANSIENT = (anthropic.APIStatusError, anthropic.APIConnectionError)\n"
             "RETRY_STATUSES = {429, 500, 503, 529}  # rate limited, error, unavailable, "
             "overloaded"),
            ("        except TRANSIENT as err:\n",
             "        except TRANSIENT as err:\n"
             "            status = getattr(err, \"status_code\", None)\n"
             "            if status is not None and status not in RETRY_STATUSES:\n"
             "                raise\n"),
        )},
    ),
    Blind(
        name="full_jitter_under_retry_after",
        bug="full jitter uniform(0, wait) is used for every sleep, a retry-after included, so "
            "retries land inside the window the server announced; under a retry-after each "
            "sleep must be in [retry-after, 1.3 x retry-after]",
        cells={"call_with_retry": _patch(RETRY, (
            "sleep(wait + random.uniform(0, JITTER * wait))",
            "sleep(random.uniform(0, wait))  # full jitter"))},
    ),
    Blind(
        name="jitter_fixed_seconds",
        bug="the jitter is a fixed uniform(0, 0.3) seconds rather than 0-30% of the wait, so it "
            "does not scale with the wait and long waits barely spread",
        cells={"call_with_retry": _patch(RETRY, (
            "sleep(wait + random.uniform(0, JITTER * wait))",
            "sleep(wait + random.uniform(0, JITTER))"))},
    ),
    Blind(
        name="max_attempts_counts_retries",
        bug="max_attempts is read as the number of retries after the first call, so "
            "max_attempts=5 makes 6 calls; it counts every call, the first included",
        cells={"call_with_retry": _patch(
            RETRY,
            ("    for k in range(attempts):\n", "    for k in range(attempts + 1):\n"),
            ("            if k == attempts - 1:\n", "            if k == attempts:\n"),
        )},
    ),
    Blind(
        name="gives_up_returning_none",
        bug="the sleep is skipped after the final failure but the error is never re-raised: "
            "the loop ends and None is returned instead of raising the last error itself",
        cells={"call_with_retry": _patch(RETRY, (
            "            if k == attempts - 1:\n"
            "                raise\n"
            "            told = _retry_after(err)\n"
            "            wait = told if told is not None else min(base * 2**k, cap)\n"
            "            sleep(wait + random.uniform(0, JITTER * wait))\n",
            "            if k < attempts - 1:  # no sleep after the final failure\n"
            "                told = _retry_after(err)\n"
            "                wait = told if told is not None else min(base * 2**k, cap)\n"
            "                sleep(wait + random.uniform(0, JITTER * wait))\n"))},
    ),
    Blind(
        name="recursive_match",
        bug="correct: recursion on the remaining budget with k as an argument, classification "
            "by a match statement on the exception classes, the last error re-raised from the "
            "innermost call, and the jitter drawn as uniform(wait, wait * 1.3)",
        cells={"call_with_retry": RETRY_RECURSIVE},
        correct=True,
    ),
]
