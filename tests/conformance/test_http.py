"""What the API checks before it reads a request: the key, the version header, the size, and
the request id every answer carries.

Sources (the ``search`` tool's docs corpus):
* overview -- https://docs.claude.com/en/api/getting-started: "All requests to the Anthropic
  API must include an x-api-key header"; "a maximum request size of 32 MB for standard
  endpoints, including the Messages API and Token Counting API. If you exceed this limit,
  you'll receive a 413 request_too_large error"; "request-id: A globally unique identifier
  for the request".
* versioning -- https://platform.claude.com/docs/en/api/versioning: "When making API requests,
  you must send an anthropic-version request header".
* errors -- https://platform.claude.com/docs/en/api/errors (401 ``authentication_error``,
  413 ``request_too_large``).
* live -- the live API's words for a missing version header, "anthropic-version: header is
  required", as quoted in public clients and gateways that log it (see course/fakes.py).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import httpx2
import pytest

from course.fakes import FakeAPI, Queue
from course.wire import message, text

URL = "https://api.anthropic.com/v1/messages"
BODY = {"model": "claude-opus-5", "max_tokens": 64,
        "messages": [{"role": "user", "content": "Hello"}]}
HEADERS = {"x-api-key": "any-key", "anthropic-version": "2023-06-01",
           "content-type": "application/json"}


def post(api: FakeAPI, body=BODY, **headers) -> httpx2.Response:
    sent = {k: v for k, v in {**HEADERS, **headers}.items() if v is not None}
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return api(httpx2.Request("POST", URL, headers=sent, content=content))


def fake() -> FakeAPI:
    return FakeAPI(Queue([message([text("ok")])] * 3))


def test_any_api_key_is_accepted():
    # source: overview (the x-api-key header); the fake has no accounts, so any key works.
    assert post(fake(), **{"x-api-key": "sk-ant-whatever"}).status_code == 200


def test_a_missing_api_key_is_a_401():
    # source: overview ("must include an x-api-key header"), errors (401 authentication_error).
    api = fake()
    response = post(api, **{"x-api-key": None})
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"
    assert api.requests == []          # refused before any model saw it


def test_a_missing_version_header_is_a_400():
    # source: versioning ("you must send an anthropic-version request header"); live wording.
    response = post(fake(), **{"anthropic-version": None})
    assert response.status_code == 400
    assert response.json()["error"] == {"type": "invalid_request_error",
                                        "message": "anthropic-version: header is required"}


def test_a_body_over_32_mb_is_a_413_in_process():
    # source: overview (32 MB for the Messages API, 413 request_too_large).
    body = dict(BODY, messages=[{"role": "user", "content": "x" * 32_000_001}])
    response = post(fake(), body)
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "request_too_large"


def test_a_body_over_32_mb_is_a_413_served():
    # source: overview, as above, through the served fake.
    api = fake()
    data = json.dumps(dict(BODY, messages=[{"role": "user", "content": "x" * 32_000_001}]))
    with api.serve() as url:
        request = urllib.request.Request(f"{url}/v1/messages", data=data.encode(),
                                         headers=HEADERS, method="POST")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=30)
    assert err.value.code == 413


def test_each_response_has_its_own_request_id():
    # source: overview ("request-id: A globally unique identifier for the request").
    api = fake()
    answers = [post(api, b"{not json"), post(api, b"[1]"), post(api), post(api)]
    ids = [r.headers["request-id"] for r in answers]
    assert len(set(ids)) == len(ids), ids
    assert [r.json().get("request_id") for r in answers[:2]] == ids[:2]
