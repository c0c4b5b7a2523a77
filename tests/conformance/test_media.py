"""Images and documents: the vision page's limits and token estimate, the SDK's source types,
and a 400 that names what the fake leaves out (URLs, file ids, PDF pages) instead of silence.

Sources (the ``search`` tool's docs and issues corpora, and the pinned SDK, anthropic 2.10.0):
* vision -- https://platform.claude.com/docs/en/build-with-claude/vision.md, "General limits":
  "100 per request on the API, for models with a 200k-token context window. 600 per request
  on the API, for all other models"; "The maximal dimensions per image are 8000x8000 px. If
  you submit more than 20 images in one API request, this limit is reduced to 2000x2000 px."
  https://docs.claude.com/en/docs/vision: images with a long edge over 1568 px "or more than
  ~1,600 tokens" are "scaled down, preserving aspect ratio"; "tokens = (width px * height
  px)/750", the rows 200x200 px ~54, 1000x1000 px ~1334, 1092x1092 px ~1590 tokens.
* SDK -- ``types/base64_image_source_param.py`` (media_type: jpeg, png, gif, webp),
  ``types/image_block_param.py`` (base64, url, file), ``types/document_block_param.py``,
  ``types/base64_pdf_source_param.py``, ``types/plain_text_source_param.py``.
* live -- the API's wording, as quoted in public reports (anthropics/claude-code issues 3073
  and 2438 for the media type, 11181 for 5 MB, 5147 for 8000 px, 17513 for 2000 px, 3397 for
  "Too much media"; microsoft/vscode-copilot-vision issue 88 for invalid data;
  vybestack/llxprt-code issue 2130 for a media type that does not match the data).
* pdf -- https://docs.anthropic.com/zh-CN/docs/build-with-claude/pdf-support (100 pages, 32
  MB): the fake does not read PDF pages, so it refuses them and says so.
"""

from __future__ import annotations

import base64
import io

import anthropic
import pytest
from PIL import Image

from course import tokens
from course.fakes import FakeAPI, PromptCache, Queue
from course.wire import message, text, tool_use

OPUS, HAIKU = "claude-opus-5", "claude-haiku-4-5"
ASK = {"type": "text", "text": "Describe the picture."}


def png(width: int, height: int, fmt: str = "PNG") -> str:
    """Base64 of a real image of this size (one grey channel, so big sizes stay small)."""
    out = io.BytesIO()
    Image.new("L", (width, height), 128).save(out, format=fmt)
    return base64.b64encode(out.getvalue()).decode()


def image(data: str, media_type: str = "image/png") -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                        "data": data}}


def send(*blocks, model=OPUS, replies=1, **kwargs):
    api = FakeAPI(Queue([message([text("A grey square.")]) for _ in range(replies)]))
    try:
        return api.client().messages.create(
            model=model, max_tokens=1024, thinking={"type": "disabled"},
            messages=[{"role": "user", "content": list(blocks)}], **kwargs)
    except anthropic.APIStatusError as err:
        return err


def rejected(*blocks, **kwargs) -> str:
    err = send(*blocks, **kwargs)
    assert isinstance(err, anthropic.BadRequestError), f"expected a 400, got {err!r}"
    return err.body["error"]["message"]


def billed_for(block: dict) -> int:
    """Input tokens a request bills for ``block``: the same request with and without it."""
    return send(block, ASK).usage.input_tokens - send(ASK).usage.input_tokens


# -- the token estimate ------------------------------------------------------------------


@pytest.mark.parametrize(("side", "tokens"), [(200, 54), (1000, 1334), (1092, 1590)])
def test_an_image_bills_width_times_height_over_750(side, tokens):
    # source: vision, "tokens = (width px * height px)/750" and its rows of worked examples.
    assert billed_for(image(png(side, side))) == tokens


def test_a_large_image_is_scaled_down_to_about_1600_tokens_whatever_its_bytes():
    # source: vision: a long edge over 1568 px or "more than ~1,600 tokens" is scaled down;
    # the bill is the scaled image's, so a 3000x1500 image costs what a ~1600-token one does.
    billed = billed_for(image(png(3000, 1500)))
    assert 1500 < billed <= 1600, billed


def test_count_tokens_counts_an_image_as_the_messages_call_bills_it():
    # source: vision (the estimate), docs api/messages/count_tokens (the Messages body, its
    # input tokens "including tools, images, and documents").
    api = FakeAPI(Queue([message([text("ok")])]))
    body = {"model": OPUS, "thinking": {"type": "disabled"},
            "messages": [{"role": "user", "content": [image(png(1000, 1000)), ASK]}]}
    counted = api.client().messages.count_tokens(**body).input_tokens
    assert counted == api.client().messages.create(max_tokens=64, **body).usage.input_tokens
    assert counted > 1334


def test_the_caching_fake_writes_an_image_at_its_estimate():
    # source: vision (the estimate); prompt caching page (images may carry cache_control).
    marked = dict(image(png(1000, 1000)), cache_control={"type": "ephemeral"})
    api = FakeAPI(PromptCache(Queue([message([text("ok")])] * 2)))
    usage = [api.client().messages.create(
        model=OPUS, max_tokens=64, thinking={"type": "disabled"},
        messages=[{"role": "user", "content": [
            {"type": "text", "text": "x" * 4 * 4096}, blk, ASK]}]).usage
        for blk in (marked, dict(marked, cache_control=None))]
    # the write holds the 4096-token text and the 1334-token image; the unmarked request
    # reads nothing (its prefix ends at no breakpoint of its own)
    assert usage[0].cache_creation_input_tokens == 4096 + 1334


# -- what an image block may be -----------------------------------------------------------


def test_a_media_type_outside_the_four_is_a_400():
    # source: SDK base64_image_source_param.py; live wording.
    assert rejected(image(png(8, 8), "image/bmp"), ASK) == (
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', "
        "'image/png', 'image/gif' or 'image/webp'")


def test_data_that_is_not_the_declared_type_is_a_400():
    # source: live ("The image was specified using the image/jpeg media type, but the image
    # appears to be a image/png image").
    assert rejected(image(png(8, 8), "image/jpeg"), ASK) == (
        "messages.0.content.0.image.source.base64: The image was specified using the "
        "image/jpeg media type, but the image appears to be a image/png image")


@pytest.mark.parametrize("data", ["not base64 at all!", base64.b64encode(b"plain text").decode()])
def test_data_that_is_no_image_is_a_400(data):
    # source: live ("...image.source.base64.data: The image specified was not valid").
    assert rejected(image(data), ASK) == (
        "messages.0.content.0.image.source.base64.data: The image specified was not valid")


def test_an_image_over_5_mb_of_base64_is_a_400():
    # source: live ("image exceeds 5 MB maximum: N bytes > 5242880 bytes").
    data = "A" * (5 * 1024 * 1024 + 4)
    assert rejected(image(data), ASK) == (
        f"messages.0.content.0.image.source.base64: image exceeds 5 MB maximum: {len(data)} "
        "bytes > 5242880 bytes")


def test_an_image_over_8000_px_is_a_400_and_8000_px_is_not():
    # source: vision ("The maximal dimensions per image are 8000x8000 px"); live wording.
    assert rejected(image(png(8001, 1)), ASK) == (
        "messages.0.content.0.image.source.base64.data: At least one of the image dimensions "
        "exceed max allowed size: 8000 pixels")
    assert isinstance(send(image(png(8000, 1)), ASK), anthropic.types.Message)


def test_an_image_in_a_tool_result_is_checked_with_its_nested_path():
    # source: SDK tool_result_block_param.py (images in a result's content); live wording
    # and path ("messages.N.content.0.tool_result.content.0.image.source.base64.media_type").
    api = FakeAPI(Queue([message([text("ok")])]))
    with pytest.raises(anthropic.BadRequestError) as err:
        api.client().messages.create(model=OPUS, max_tokens=64, messages=[
            {"role": "user", "content": "Take a screenshot."},
            {"role": "assistant", "content": [tool_use("screenshot", {}, id="toolu_shot")]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_shot",
                                          "content": [image(png(8, 8), "image/tiff")]}]}])
    assert err.value.body["error"]["message"].startswith(
        "messages.2.content.0.tool_result.content.0.image.source.base64.media_type: ")


def test_a_url_or_file_image_is_refused_with_what_the_fake_leaves_out():
    # source: SDK image_block_param.py (url and file sources exist); the fake is offline and
    # has no Files API, so it says so instead of answering as if it had seen the image.
    url = rejected({"type": "image", "source": {"type": "url",
                                                "url": "https://example.com/a.png"}}, ASK)
    assert "offline fake does not fetch images from URLs" in url and "base64" in url
    file = rejected({"type": "image", "source": {"type": "file", "file_id": "file_1"}}, ASK)
    assert "no Files API" in file


# -- how many images ----------------------------------------------------------------------


def test_more_than_100_images_is_a_400_on_a_200k_model_and_not_on_opus_5():
    # source: vision (100 per request with a 200k-token window, 600 on all other models; Haiku
    # 4.5 has 200K, Opus 5 1M); live wording ("Too much media: 0 document pages + N images >
    # L").
    tiny = image(png(4, 4))
    assert rejected(*[tiny] * 101, ASK, model=HAIKU) == (
        "Too much media: 0 document pages + 101 images > 100")
    assert isinstance(send(*[tiny] * 101, ASK, model=OPUS), anthropic.types.Message)
    assert rejected(*[tiny] * 601, ASK, model=OPUS) == (
        "Too much media: 0 document pages + 601 images > 600")


def test_past_20_images_each_must_fit_2000_px():
    # source: vision ("If you submit more than 20 images in one API request, this limit is
    # reduced to 2000x2000 px"); live wording.
    tiny, wide = image(png(4, 4)), image(png(2001, 1))
    assert isinstance(send(wide, *[tiny] * 19, ASK), anthropic.types.Message)
    assert rejected(*[tiny] * 20, wide, ASK) == (
        "messages.0.content.20.image.source.base64.data: At least one of the image "
        "dimensions exceed max allowed size for many-image requests: 2000 pixels")


# -- documents ----------------------------------------------------------------------------


def test_a_text_document_bills_its_text_not_its_json():
    # source: SDK plain_text_source_param.py (a text source); docs api/messages/count_tokens
    # (documents are input). The fake's tokenizer stand-in reads four characters a token
    # (course/tokens.py), so 1200 characters of text bill 300, with no JSON around them.
    words = "The fake reads this document. " * 40
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                          "data": words}}
    assert len(words) == 1200 and billed_for(doc) == 300


def test_a_pdf_is_refused_with_what_the_fake_leaves_out():
    # source: pdf (the pages a PDF bills and is limited by, which the fake does not read);
    # SDK base64_pdf_source_param.py.
    pdf = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": base64.b64encode(b"%PDF-1.4").decode()}}
    problem = rejected(pdf, ASK)
    assert problem.startswith("messages.0.content.0.document.source.base64: ")
    assert "does not read PDF pages" in problem and "text source" in problem


def test_a_document_with_the_wrong_media_type_is_a_400():
    # source: SDK plain_text_source_param.py (text/plain), base64_pdf_source_param.py.
    doc = {"type": "document", "source": {"type": "text", "media_type": "text/markdown",
                                          "data": "# notes"}}
    assert rejected(doc, ASK) == (
        "messages.0.content.0.document.source.text.media_type: Input should be 'text/plain'")


@pytest.mark.parametrize("block", [
    {"type": "image"},
    {"type": "image", "source": "iVBORw0KGgo="},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "ü"}},
    {"type": "image", "source": {"type": "base64", "media_type": ["image/png"], "data": "x"}},
    {"type": "document", "source": {"type": "content", "content": [{"type": "tool_use"}]}},
    {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": ""}]}},
])
def test_a_malformed_media_block_is_a_400_never_a_crash(block):
    # source: docs api/errors (400 invalid_request_error for the format of a request); the
    # SDK's block types above. Every one of these reached the model before.
    assert rejected(block, ASK).startswith(("messages.0.content.0", "messages: text content"))


def _counted_the_long_way(body: dict) -> int:
    """What ``request_tokens`` must give: every image and document block taken out of the
    messages and billed on its own, whether or not there is one."""
    messages = body.get("messages")
    plain, billed = tokens._split_media(tokens._without_thinking(messages))
    parts = [body.get("system"), body.get("tools"), plain]
    return (sum(tokens.count(p) for p in parts if p) + tokens._shown_thinking(messages)
            + billed)


@pytest.mark.parametrize("content", [
    "plain text",
    [{"type": "text", "text": 'a text that quotes {"type":"image"} and "type":"document"'}],
    [image(png(64, 64)), {"type": "text", "text": "and words"}],
    [{"type": "document", "source": {"type": "text", "media_type": "text/plain",
                                     "data": "a document"}, "title": "t"}],
    [{"type": "tool_result", "tool_use_id": "t1", "content": [image(png(32, 32))]}],
    [{"type": "thinking", "thinking": "reasoned", "signature": "s"},
     {"type": "text", "text": "then said"}],
])
def test_a_request_without_media_is_counted_from_its_json_at_once(content):
    # request_tokens skips the walk that takes media out when the compact JSON holds no
    # media block; the count must be the same either way, quoted marks included.
    body = {"system": "be brief", "messages": [{"role": "user", "content": content}]}
    assert tokens.request_tokens(body) == _counted_the_long_way(body)
