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
