"""Image and document blocks, as the vision and PDF pages describe them: what the fake checks
in them and how many input tokens an image bills.

What is modelled: ``image`` blocks with a ``base64`` source (in a message, in a
``tool_result``'s content, in a document's content source), read with Pillow for their real
format and size; ``document`` blocks with a plain-text (``text``) or ``content`` source. What
the fake leaves out it refuses with a 400 that says so, never silently: an image or PDF at a
URL (the course runs offline), a ``file_id`` (there is no Files API here), and PDFs, whose
pages the fake does not read. The functions return the error message, or ``None``;
:mod:`course.validation` raises it, :mod:`course.tokens` bills with :func:`image_tokens`.

Sources (found with the search tool, docs corpus):

* ``docs:vision`` -- https://platform.claude.com/docs/en/build-with-claude/vision.md,
  "General limits": "100 per request on the API, for models with a 200k-token context
  window. 600 per request on the API, for all other models"; "The maximal dimensions per image
  are 8000x8000 px. If you submit more than 20 images in one API request, this limit is
  reduced to 2000x2000 px." The older copy (https://docs.claude.com/en/docs/vision): "If your
  image's long edge is more than 1568 pixels, or your image is more than ~1,600 tokens, it
  will first be scaled down, preserving aspect ratio"; "If your image does not need to be
  resized, you can estimate the number of tokens used through this algorithm: tokens = (width
  px * height px)/750", with the worked rows 200x200 px ~54, 1000x1000 px ~1334, 1092x1092 px
  ~1590 tokens (the ja copy, platform.claude.com/docs/ja/build-with-claude/vision, has the
  same table), which round up.
* ``docs:pdf`` -- https://docs.anthropic.com/zh-CN/docs/build-with-claude/pdf-support
  (maximum request size 32MB, at most 100 pages a request, standard PDFs only).
* ``sdk`` -- anthropic 2.10.0, ``types/base64_image_source_param.py`` (``media_type``:
  ``Literal["image/jpeg", "image/png", "image/gif", "image/webp"]``), ``types/image_block_param
  .py`` (sources ``base64``, ``url``, ``file``), ``types/document_block_param.py`` (sources
  ``base64`` PDF, ``text``, ``content``, ``url``, ``file``), ``types/base64_pdf_source_param.py``
  (``application/pdf``), ``types/plain_text_source_param.py`` (``text/plain``),
  ``types/content_block_source_content_param.py`` (text and image blocks).
* ``live`` -- the API's messages, as quoted in public reports: "messages.N.content.M.image.
  source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or
  'image/webp'" (anthropics/claude-code issues 3073, 2438); "...image.source.base64: image
  exceeds 5 MB maximum: 11641928 bytes > 5242880 bytes" (claude-code 11181); "...image.source.
  base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels"
  (claude-code 5147, 4778) and "... for many-image requests: 2000 pixels" (claude-code 17513,
  24630); "Too much media: 0 document pages + 103 images > 100" (claude-code 3397, 19822);
  "...image.source.base64.data: The image specified was not valid" (microsoft/vscode-copilot-
  vision issue 88); "...image.source.base64: The image was specified using the image/jpeg media
  type, but the image appears to be a image/png image" (vybestack/llxprt-code issue 2130). The
  5 MB is of the base64 text, as public clients that guard against it count it
  (claude-code's constants/apiLimits.ts, API_IMAGE_MAX_BASE64_SIZE).

Not modelled (stated, not enforced): the resize limits of models newer than the pages found
(the fake resizes every model at 1568 px and about 1,600 tokens), ``transformations``
(accepted, no effect), animated GIFs (billed as one frame), and what a PDF page bills.
"""

from __future__ import annotations

import base64
import binascii
import collections
import hashlib
import io
import math
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from PIL import Image

JSON = dict[str, Any]

#: source: sdk (base64_image_source_param.py), live (the same four, in this order).
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
#: Pillow's name for each format the API takes.
_FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "WEBP": "image/webp"}
#: source: live ("5 MB maximum: ... > 5242880 bytes"), of the base64 text.
MAX_IMAGE_BASE64 = 5 * 1024 * 1024
#: source: docs:vision (8000x8000 px; 2000x2000 px past 20 images in one request).
MAX_SIDE = 8000
MANY_IMAGES = 20
MAX_SIDE_MANY = 2000
#: source: docs:vision (images per request: 100 with a 200k window, 600 on all other models).
MAX_IMAGES_200K = 100
MAX_IMAGES_OTHER = 600
#: source: docs:vision (scaled down past a 1568 px long edge or ~1,600 tokens; tokens =
#: width * height / 750).
LONG_EDGE = 1568
RESIZE_TOKENS = 1600
PIXELS_PER_TOKEN = 750

_IMAGE_SOURCES = ("base64", "url", "file")
_DOCUMENT_SOURCES = ("base64", "text", "content", "url", "file")
_NO_URL = ("{where}.source.url: this offline fake does not fetch {what} from URLs (the course "
           "has no network); send it as base64{alternative}")
_NO_FILE = ("{where}.source.file_id: this offline fake has no Files API, so a file_id names no "
            "file here; send the {what} inline{alternative}")


#: What :func:`image_info` read, by the SHA-256 of the base64 text: a request is read several
#: times (checks, usage, count_tokens), and a key this small keeps no image data alive.
_READ: collections.OrderedDict[bytes, tuple[str, int, int] | None] = collections.OrderedDict()
_READ_KEPT = 512
_READ_LOCK = threading.Lock()


def image_info(data: str) -> tuple[str, int, int] | None:
    """(media type, width, height) of a base64 image, read from its header with Pillow, or
    ``None`` when the data is not base64 of an image in a format the API takes."""
    key = hashlib.sha256(data.encode("utf-8", "surrogatepass")).digest()
    with _READ_LOCK:                 # a served fake answers each request in its own thread
        if key in _READ:
            _READ.move_to_end(key)
            return _READ[key]
    info = _read(data)
    with _READ_LOCK:
        _READ[key] = info
        if len(_READ) > _READ_KEPT:
            _READ.popitem(last=False)
    return info


def _read(data: str) -> tuple[str, int, int] | None:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(raw)) as im:
                kind, (width, height) = _FORMATS.get(str(im.format)), im.size
    except Image.DecompressionBombError:
        # Pillow refuses past twice its pixel cap (about 179 megapixels): such an image has
        # a side over 13,000 px, so it is over the 8000 px limit whatever its shape.
        return "oversized", MAX_SIDE + 1, MAX_SIDE + 1
    except Exception:  # noqa: BLE001 - any malformed byte string: not a valid image
        return None
    return (kind, width, height) if kind else None


def image_tokens(width: int, height: int) -> int:
    """Input tokens of an image of this size: ``width * height / 750`` rounded up, after the
    scaling the vision page describes (long edge at most 1568 px, at most about 1,600 tokens,
    aspect ratio kept). source: docs:vision; the page gives no exact resize rule, so the fake
    scales to the larger size that meets both limits."""
    scale = min(1.0, LONG_EDGE / max(width, height),
                math.sqrt(RESIZE_TOKENS * PIXELS_PER_TOKEN / (width * height)))
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    return math.ceil(w * h / PIXELS_PER_TOKEN)


def block_image_tokens(block: JSON) -> int | None:
    """Tokens of an ``image`` block with a readable base64 source, else ``None``."""
    source = block.get("source")
    if not (isinstance(source, dict) and source.get("type") == "base64"
            and isinstance(source.get("data"), str)):
        return None
    info = image_info(source["data"])
    if info is None or info[0] == "oversized":
        return None
    return image_tokens(info[1], info[2])


def max_images(context_window: int | None) -> int:
    """Images one request may hold on a model with this context window (source: docs:vision).
    A model the fake has no row for gets the 100 of the page's older copy."""
    if context_window is not None and context_window > 200_000:
        return MAX_IMAGES_OTHER
    return MAX_IMAGES_200K


def image_error(block: JSON, where: str) -> str | None:
    """The API's 400 for one ``image`` block at ``where`` (its path), or ``None``."""
    at = f"{where}.image"
    source = block.get("source")
    kind = source.get("type") if isinstance(source, dict) else None
    if kind not in _IMAGE_SOURCES:
        # source: sdk (image_block_param.py: base64, url or file); wording ours.
        return f"{at}.source.type: Input should be 'base64', 'url' or 'file'"
    assert isinstance(source, dict)
    if kind == "url":
        return _NO_URL.format(where=at, what="images", alternative="")
    if kind == "file":
        return _NO_FILE.format(where=at, what="image", alternative=" as base64")
    if source.get("media_type") not in IMAGE_MEDIA_TYPES:
        return (f"{at}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', "
                "'image/gif' or 'image/webp'")                         # source: live
    data = source.get("data")
    if not isinstance(data, str):
        return f"{at}.source.base64.data: Input should be a valid string"  # wording ours
    if len(data) > MAX_IMAGE_BASE64:
        return (f"{at}.source.base64: image exceeds 5 MB maximum: {len(data)} bytes > "
                f"{MAX_IMAGE_BASE64} bytes")                           # source: live
    info = image_info(data)
    if info is None:
        return f"{at}.source.base64.data: The image specified was not valid"  # source: live
    found, width, height = info
    if found != "oversized" and found != source["media_type"]:
        return (f"{at}.source.base64: The image was specified using the "
                f"{source['media_type']} media type, but the image appears to be a {found} "
                "image")                                               # source: live
    if max(width, height) > MAX_SIDE:
        return (f"{at}.source.base64.data: At least one of the image dimensions exceed max "
                f"allowed size: {MAX_SIDE} pixels")                    # source: live
    return None


def document_error(block: JSON, where: str) -> str | None:
    """The 400 for one ``document`` block at ``where``, or ``None``. The blocks of a
    ``content`` source are the caller's to check (text and image blocks, sdk)."""
    at = f"{where}.document"
    source = block.get("source")
    kind = source.get("type") if isinstance(source, dict) else None
    if kind not in _DOCUMENT_SOURCES:
        # source: sdk (document_block_param.py); wording ours.
        return (f"{at}.source.type: Input should be 'base64', 'text', 'content', 'url' or "
                "'file'")
    assert isinstance(source, dict)
    text_instead = " as a document with a text source, or as text"
    if kind == "url":
        return _NO_URL.format(where=at, what="documents", alternative=text_instead)
    if kind == "file":
        return _NO_FILE.format(where=at, what="document", alternative=text_instead)
    if kind == "base64":
        if source.get("media_type") != "application/pdf":
            # source: sdk (base64_pdf_source_param.py); wording ours, in the API's style.
            return f"{at}.source.base64.media_type: Input should be 'application/pdf'"
        # source: docs:pdf (the pages the fake would have to read to bill and limit them).
        return (f"{at}.source.base64: this offline fake does not read PDF pages, so it can "
                "neither bill nor limit them; send the document's text as a document with a "
                "text source ({'type': 'text', 'media_type': 'text/plain', 'data': ...})")
    if kind == "text":
        if source.get("media_type") != "text/plain":
            # source: sdk (plain_text_source_param.py); wording ours.
            return f"{at}.source.text.media_type: Input should be 'text/plain'"
        if not isinstance(source.get("data"), str):
            return f"{at}.source.text.data: Input should be a valid string"  # wording ours
        return None
    content = source.get("content")
    if not isinstance(content, (str, list)):
        # source: sdk (content_block_source_param.py); wording ours.
        return f"{at}.source.content.content: Input should be a valid string or list"
    if isinstance(content, list) and any(
            not isinstance(b, dict) or b.get("type") not in ("text", "image") for b in content):
        # source: sdk (content_block_source_content_param.py); wording ours.
        return f"{at}.source.content.content: a content source holds text and image blocks"
    return None


def images(body: JSON) -> Iterator[tuple[str, JSON]]:
    """Every image block of a request's messages, with its path: in a message, in a
    tool_result's content, in a document's content source."""
    for i, m in enumerate(body.get("messages") or []):
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            for j, b in enumerate(content):
                yield from _images_in(b, f"messages.{i}.content.{j}")


def _images_in(block: Any, where: str) -> Iterator[tuple[str, JSON]]:
    if not isinstance(block, dict):
        return
    kind = block.get("type")
    if kind == "image":
        yield where, block
    elif kind == "tool_result" and isinstance(block.get("content"), list):
        for k, nested in enumerate(block["content"]):
            yield from _images_in(nested, f"{where}.tool_result.content.{k}")
    elif kind == "document" and isinstance(block.get("source"), dict):
        inner = block["source"].get("content")
        if isinstance(inner, list):
            for k, nested in enumerate(inner):
                yield from _images_in(nested, f"{where}.document.source.content.{k}")


def count_error(body: JSON, context_window: int | None) -> str | None:
    """The 400 for too many images in one request, or for an image over 2000 px in a request
    of more than 20 (source: docs:vision; live wording for both), or ``None``. Every image
    block is taken to have passed :func:`image_error`."""
    found = list(images(body))
    limit = max_images(context_window)
    if len(found) > limit:
        # PDFs are refused, so no document pages count here.
        return f"Too much media: 0 document pages + {len(found)} images > {limit}"
    if len(found) <= MANY_IMAGES:
        return None
    for where, block in found:
        info = image_info(block["source"]["data"])
        if info is not None and max(info[1], info[2]) > MAX_SIDE_MANY:
            return (f"{where}.image.source.base64.data: At least one of the image dimensions "
                    f"exceed max allowed size for many-image requests: {MAX_SIDE_MANY} pixels")
    return None
