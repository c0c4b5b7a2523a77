"""Errors and headers as the Messages API documents them, read through the real SDK.

One test per documented behaviour: the ``error.type`` of each status, the ``request_id`` in
every error body (the ``request-id`` header's value), the ``anthropic-ratelimit-*`` headers
on every response, and ``retry-after``. Each test names its source.

Sources (the ``search`` tool's docs corpus):
* errors      -- https://platform.claude.com/docs/en/api/errors (and its .md form)
* rate-limits -- https://platform.claude.com/docs/en/api/rate-limits, "Response headers"
* SDK         -- anthropic 2.10.0, the files named on each test.
"""

from __future__ import annotations

import datetime

import anthropic
import pytest

from course.fakes import FakeAPI, Queue
from course.wire import Reply, error_body, message, text

GOAL = {"role": "user", "content": "hi"}
RATE_LIMIT_HEADERS = [f"anthropic-ratelimit-{kind}-{field}"
                      for kind in ("requests", "tokens", "input-tokens", "output-tokens")
                      for field in ("limit", "remaining", "reset")]


def raised(reply: Reply) -> anthropic.APIStatusError:
    """The SDK error a scripted reply becomes."""
    client = FakeAPI(Queue([reply])).client()
    with pytest.raises(anthropic.APIStatusError) as err:
        client.messages.create(model="claude-opus-5", max_tokens=64, messages=[GOAL])
    return err.value


# -- error.type per status --------------------------------------------------------------


@pytest.mark.parametrize(("status", "kind", "sdk_class"), [
    (400, "invalid_request_error", anthropic.BadRequestError),
    (401, "authentication_error", anthropic.AuthenticationError),
    (402, "billing_error", anthropic.PaymentRequiredError),
    (403, "permission_error", anthropic.PermissionDeniedError),
    (404, "not_found_error", anthropic.NotFoundError),
    (409, "conflict_error", anthropic.ConflictError),
    (413, "request_too_large", anthropic.ContentTooLargeError),
    (429, "rate_limit_error", anthropic.RateLimitError),
    (500, "api_error", anthropic.InternalServerError),
    (504, "timeout_error", anthropic.GatewayTimeoutError),
    (529, "overloaded_error", anthropic.OverloadedError),
])
def test_each_status_carries_its_documented_error_type(status, kind, sdk_class):
    # source: errors, "HTTP errors" (each status with its type: 402 billing_error, 409
    # conflict_error, 504 timeout_error among them); SDK _error_classes.py lines 135-151
    # (the class per status) and types/shared/error_type.py (the type strings).
    err = raised(Reply.error(status, "scripted"))
    assert type(err) is sdk_class and err.status_code == status
    assert err.body["error"] == {"type": kind, "message": "scripted"}
    assert err.type == kind  # SDK _exceptions.py: APIStatusError.type is error.type


def test_an_unlisted_4xx_is_invalid_request_error():
    # source: errors ("This error type may also be used for other 4XX status codes not listed
    # in this section").
    assert raised(Reply.error(422)).body["error"]["type"] == "invalid_request_error"


def test_an_unlisted_5xx_is_api_error():
    # source: errors lists no 503; the docs are silent on its type, and api_error is the
    # SDK's server-error type (types/shared/api_error_object.py). Matched before issue 19.
    err = raised(Reply.error(503))
    assert isinstance(err, anthropic.ServiceUnavailableError)
    assert err.body["error"]["type"] == "api_error"


# -- request_id -------------------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 429, 500, 529])
def test_a_scripted_error_body_carries_the_request_id_of_its_header(status):
    # source: errors, "Error shapes" ("The response also includes a request_id field") and
    # "Request IDs" (every response has a request-id header); SDK
    # types/shared/error_response.py (request_id).
    err = raised(Reply.error(status, "scripted"))
    assert err.body["request_id"] == err.response.headers["request-id"] == err.request_id
    assert err.body["request_id"].startswith("req_")


def test_a_validation_400_and_a_404_carry_the_request_id():
    # source: as above; the fake's own 400s and 404s are errors like any other.
    client = FakeAPI(Queue([])).client()
    for model, messages in (("claude-opus-5", [GOAL, {"role": "assistant", "content": "x"}]),
                            ("claude-opus-9", [GOAL])):
        with pytest.raises(anthropic.APIStatusError) as err:
            client.messages.create(model=model, max_tokens=64, messages=messages)
        assert err.value.status_code in (400, 404)
        assert err.value.body["request_id"] == err.value.response.headers["request-id"]


def test_each_request_gets_its_own_request_id():
    # source: errors, "Request IDs" ("a unique request-id header").
    client = FakeAPI(Queue([message([text("a")]), message([text("b")])])).client()
    ids = {client.messages.with_raw_response.create(
        model="claude-opus-5", max_tokens=8, messages=[GOAL]).headers["request-id"]
        for _ in range(2)}
    assert len(ids) == 2


def test_a_request_id_the_script_sets_is_kept():
    # source: errors, "Error shapes"; a recorded reply keeps its own id.
    body = error_body(500, "recorded", request_id="req_recorded")
    err = raised(Reply(500, {"request-id": "req_recorded"}, body=body))
    assert err.body["request_id"] == err.request_id == "req_recorded"


# -- rate-limit headers -----------------------------------------------------------------


def _check_rate_limit_headers(headers) -> None:
    for name in RATE_LIMIT_HEADERS:
        assert name in headers, f"{name} missing"
    for kind in ("requests", "tokens", "input-tokens", "output-tokens"):
        limit = int(headers[f"anthropic-ratelimit-{kind}-limit"])
        remaining = int(headers[f"anthropic-ratelimit-{kind}-remaining"])
        assert 0 <= remaining <= limit
        reset = datetime.datetime.fromisoformat(headers[f"anthropic-ratelimit-{kind}-reset"])
        assert reset.tzinfo is not None  # RFC 3339: a time with its offset


def test_a_reply_carries_the_rate_limit_headers():
    # source: rate-limits, "Response headers" (the twelve anthropic-ratelimit-* headers;
    # reset "in RFC 3339 format").
    client = FakeAPI(Queue([message([text("ok")])])).client()
    raw = client.messages.with_raw_response.create(model="claude-opus-5", max_tokens=8,
                                                   messages=[GOAL])
    _check_rate_limit_headers(raw.headers)


def test_errors_and_streams_carry_them_too():
    # source: rate-limits ("The API response includes headers that show you the rate limit
    # enforced"), for every response: errors and streams alike.
    _check_rate_limit_headers(raised(Reply.error(529)).response.headers)
    client = FakeAPI(Queue([message([text("ok")])])).client()
    with pytest.raises(anthropic.BadRequestError) as err:  # the fake's own 400
        client.messages.create(model="claude-opus-5", max_tokens=8, messages=[
            {"role": "user", "content": ""}])
    _check_rate_limit_headers(err.value.response.headers)
    with client.messages.with_streaming_response.create(
            model="claude-opus-5", max_tokens=8, messages=[GOAL], stream=True) as raw:
        _check_rate_limit_headers(raw.headers)


def test_a_429_shows_the_requests_window_spent():
    # source: rate-limits (remaining is "The number of requests remaining before being rate
    # limited"; a 429 is being rate limited).
    headers = raised(Reply.error(429, retry_after=3)).response.headers
    assert headers["anthropic-ratelimit-requests-remaining"] == "0"


def test_a_scripted_rate_limit_header_wins():
    # source: rate-limits; a recorded reply keeps the headers it was recorded with.
    err = raised(Reply.error(429, headers={"anthropic-ratelimit-requests-remaining": "7"}))
    assert err.response.headers["anthropic-ratelimit-requests-remaining"] == "7"


# -- retry-after ------------------------------------------------------------------------


def test_a_429_carries_the_retry_after_the_script_gives():
    # source: rate-limits (retry-after: "The number of seconds to wait until you can retry
    # the request"). Matched before issue 19.
    assert raised(Reply.error(429, retry_after=12)).response.headers["retry-after"] == "12"


def test_a_spend_cap_429_has_no_retry_after():
    # source: errors (a 429 for the usage tier's monthly spend cap "has no retry-after
    # header"; error.details.error_code is enforced_spend_limit_reached); SDK
    # _error_classes.py (429, "enforced_spend_limit_reached"). The fake adds no retry-after
    # of its own to any 429: it sends the script's, so a world can script either kind.
    body = error_body(429, "Your organization has reached its monthly spend limit.")
    body["error"]["details"] = {"error_code": "enforced_spend_limit_reached"}
    err = raised(Reply(429, body=body))
    assert isinstance(err, anthropic.EnforcedSpendLimitReachedError)
    assert "retry-after" not in err.response.headers
    assert err.body["request_id"] == err.request_id


def test_headers_and_request_id_cross_the_served_http_wire():
    # source: errors and rate-limits, as above; FakeAPI.serve answers through the same fake.
    api = FakeAPI(Queue([Reply.error(529, "busy")]))
    with api.serve() as url:
        client = anthropic.Anthropic(api_key="k", base_url=url, max_retries=0)
        with pytest.raises(anthropic.OverloadedError) as err:
            client.messages.create(model="claude-opus-5", max_tokens=8, messages=[GOAL])
    assert err.value.body["request_id"] == err.value.response.headers["request-id"]
    _check_rate_limit_headers(err.value.response.headers)
