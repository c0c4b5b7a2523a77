"""The endpoints beside Messages: token counting and the models list, through the real SDK.

Sources (the ``search`` tool's docs corpus, and the pinned SDK, anthropic 2.10.0):
* count -- https://platform.claude.com/docs/en/api/http/messages/count_tokens ("Count the number
  of tokens in a Message ... including tools, images, and documents, without creating it");
  SDK ``types/message_count_tokens_params.py`` (``messages`` and ``model`` required, no
  ``max_tokens``), ``types/message_tokens_count.py`` (``input_tokens``: "The total number of
  tokens across the provided list of messages, system prompt, and tools").
* models -- https://docs.anthropic.com/pt/api/models-list and
  https://platform.claude.com/docs/en/api/csharp/models/list ("More recently released models
  are listed first"; ``before_id``, ``after_id``, ``limit`` "Defaults to 20. Ranges from 1 to
  1000"; the response's ``first_id`` "Can be used as the before_id for the previous page",
  ``last_id`` "as the after_id for the next page", ``has_more`` "Indicates if there are more
  results in the requested page direction"); SDK ``resources/models.py`` (``GET /v1/models``,
  ``GET /v1/models/{model_id}``), ``types/model_info.py``.
* errors -- https://platform.claude.com/docs/en/api/errors (404 ``not_found_error``).
"""

from __future__ import annotations

import anthropic
import pytest

from course import tokens
from course.fakes import FakeAPI, Queue
from course.wire import message, text

OPUS, SONNET, HAIKU = "claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5"
GOAL = {"role": "user", "content": "What is the weather in Paris?"}
WEATHER = {"name": "get_weather", "description": "Weather for a city.",
           "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                            "required": ["city"]}}


def fake(replies=1):
    api = FakeAPI(Queue([message([text("ok")])] * replies))
    return api, api.client()


# -- token counting -----------------------------------------------------------------------


def test_count_tokens_answers_input_tokens_without_max_tokens():
    # source: count (the response is {"input_tokens": N}; max_tokens is not a parameter).
    api, client = fake(0)
    counted = client.messages.count_tokens(model=OPUS, messages=[GOAL], system="Be brief.",
                                           tools=[WEATHER])
    # What create would bill as input for the same request: the fake's 4-characters-a-token
    # count of the system prompt, the tools and the messages, each counted on its own.
    want = (tokens.count("Be brief.") + tokens.count([WEATHER]) + tokens.count([GOAL]))
    assert counted.input_tokens == want


def test_count_tokens_equals_the_input_usage_of_the_same_request():
    # source: count ("Count the number of tokens in a Message ... without creating it").
    api, client = fake(1)
    body = {"model": HAIKU, "messages": [GOAL], "system": "Be brief.", "tools": [WEATHER]}
    counted = client.messages.count_tokens(**body).input_tokens
    billed = client.messages.create(max_tokens=64, **body).usage.input_tokens
    assert counted == billed


def test_count_tokens_uses_no_reply_and_is_kept_out_of_the_request_log():
    # source: count ("without creating it"): no Message is made, so no scripted or recorded
    # reply is spent, and a judge counting model calls from api.requests does not see it.
    api, client = fake(1)
    client.messages.count_tokens(model=OPUS, messages=[GOAL])
    assert api.requests == [] and len(api.counted) == 1
    reply = client.messages.create(model=OPUS, max_tokens=64, messages=[GOAL])
    assert [b.text for b in reply.content if b.type == "text"] == ["ok"]
    assert len(api.requests) == 1


def test_count_tokens_validates_like_messages():
    # source: count (the same body as Messages, less max_tokens); errors (400).
    api, client = fake(0)
    with pytest.raises(anthropic.BadRequestError) as err:
        client.messages.count_tokens(model=OPUS, messages=[
            {"role": "user", "content": [{"type": "text", "text": ""}]}])
    assert err.value.body["error"]["message"] == "messages: text content blocks must be non-empty"
    with pytest.raises(anthropic.NotFoundError):
        client.messages.count_tokens(model="claude-opus-9", messages=[GOAL])


def test_count_tokens_needs_messages_and_model():
    # source: SDK types/message_count_tokens_params.py (messages and model are Required).
    api, client = fake(0)
    with pytest.raises(anthropic.BadRequestError) as err:
        client.messages.count_tokens(model=OPUS, messages=[])
    assert err.value.status_code == 400


# -- models -------------------------------------------------------------------------------


def test_models_list_names_every_model_newest_first():
    # source: models ("More recently released models are listed first"): Opus 5 (released
    # July 24, 2026, models/opus-5 overview), Haiku 4.5 (October 15, 2025, models/haiku-4-5
    # overview). The alias claude-haiku-4-5 is not a separate model.
    _, client = fake(0)
    page = client.models.list()
    ids = [m.id for m in page.data]
    assert {"claude-opus-5", "claude-sonnet-5", "claude-haiku-4-5-20251001"} == set(ids)
    assert ids.index("claude-opus-5") < ids.index("claude-haiku-4-5-20251001")
    assert page.has_more is False
    assert page.first_id == ids[0] and page.last_id == ids[-1]
    assert all(m.type == "model" for m in page.data)


def test_models_list_pages_with_limit_and_after_id():
    # source: models (limit, after_id, last_id, has_more "in the requested page direction").
    _, client = fake(0)
    every = [m.id for m in client.models.list().data]
    first = client.models.list(limit=1)
    assert [m.id for m in first.data] == every[:1] and first.has_more is True
    second = client.models.list(limit=1, after_id=first.last_id)
    assert [m.id for m in second.data] == every[1:2]
    back = client.models.list(limit=5, before_id=every[-1])
    assert [m.id for m in back.data] == every[:-1] and back.has_more is False
    # the SDK's own auto-pagination walks every page
    assert [m.id for m in client.models.list(limit=1)] == every


@pytest.mark.parametrize("limit", [0, 1001])
def test_a_models_limit_out_of_range_is_a_400(limit):
    # source: models (limit "Ranges from 1 to 1000").
    _, client = fake(0)
    with pytest.raises(anthropic.BadRequestError):
        client.models.list(limit=limit)


@pytest.mark.parametrize("model_id", ["claude-opus-5", "claude-sonnet-5",
                                      "claude-haiku-4-5-20251001"])
def test_models_retrieve_answers_each_model(model_id):
    # source: SDK resources/models.py (GET /v1/models/{model_id}), types/model_info.py.
    _, client = fake(0)
    info = client.models.retrieve(model_id)
    assert info.id == model_id and info.type == "model" and info.display_name.startswith(
        "Claude ")


def test_models_retrieve_resolves_an_alias():
    # source: models-overview (claude-haiku-4-5 is the alias of claude-haiku-4-5-20251001);
    # SDK resources/models.py (model_id: "Model identifier or alias").
    _, client = fake(0)
    assert client.models.retrieve("claude-haiku-4-5").id == "claude-haiku-4-5-20251001"


def test_an_unknown_model_is_a_404():
    # source: errors (404 not_found_error).
    _, client = fake(0)
    with pytest.raises(anthropic.NotFoundError) as err:
        client.models.retrieve("claude-opus-9")
    assert err.value.body["error"]["type"] == "not_found_error"
