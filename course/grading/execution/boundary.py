"""The one boundary between a grading kernel and the grader's process.

Everything a kernel sends is hostile input: records, the tamper probe's answer (review flags
and the names in them), error names and messages, the outputs kept for feedback, and what
it asks of the hub of fakes. Every such value passes through a function here before the
grader keeps it, compares it, prints it or writes it:

* :func:`text` and :func:`line`: strict UTF-8 (a lone surrogate becomes U+FFFD), every
  terminal control, format and private-use character escaped as ``\\xNN`` / ``\\uNNNN``
  (no ESC, CR, backspace or bidi override reaches a terminal, a JSON file or a page), and a
  length cap that says how much was cut;
* :func:`flags`: review flags, each one line of at most :data:`MAX_NAME` characters, at
  most :data:`MAX_FLAGS` of them;
* :func:`check_record`: a record's shape, walked once without recursion: nesting at most
  :data:`MAX_DEPTH`, at most :data:`MAX_NODES` values and :data:`MAX_REFS` references to
  served logs; a record past a cap fails its cell with :class:`Refused`'s reason;
* :func:`shown`: how a judge's failure message shows a value (``.judge`` rewrites the
  judge's messages to call it): short and marked (:data:`OPEN` ... :data:`CLOSE`), so no
  message carries a record whole, while what a judge compares is the plain value;
* :func:`judge_message` and :func:`error_verdict`: the only text of a hidden cell that
  reaches a student, from grader-written words and short values (see their docstrings);
* :class:`Secrets`: what the kernel could have learnt while graded (the record parts of the
  hidden tests, sent to it with each cell), to find in a kernel value in plain text or a
  common encoding;
* :func:`image`: a plot a visible cell drew, decoded and written again as a fresh PNG by
  the grader (pixels only, capped in bytes and pixels), or refused with a reason.

Nothing here knows what a right answer is.
"""

from __future__ import annotations

import ast
import base64
import binascii
import builtins
import codecs
import re
import unicodedata
import urllib.parse
from collections.abc import Iterable
from typing import Any

from .. import syntax

#: A name: a review flag, a label, an exception's class name, a factory name.
MAX_NAME = 200
#: Review flags kept per submission; past it, one more flag says how many were dropped.
MAX_FLAGS = 40
#: A message shown for a cell: a judge's or a visible check's.
MAX_MESSAGE = 600
#: An error or other text kept in an output of a non-test cell.
MAX_OUTPUT_TEXT = 20_000
#: How deep a record may nest, how many values it may hold, how many served-log
#: references it may carry.
MAX_DEPTH = 64
MAX_NODES = 250_000
MAX_REFS = 64
#: How much of one kernel value a failure message shows.
SHOW = 80
#: Marks around text that came from the kernel, inside a failure message being built.
OPEN, CLOSE = "\ue000", "\ue001"
#: An image kept in an output: its encoded size (base64, as the kernel sent it), its sides
#: and its pixel count; at most :data:`MAX_IMAGES` of them per notebook (``.sanitize``).
MAX_IMAGE_BYTES = 2_000_000
MAX_IMAGE_SIDE = 4000
MAX_IMAGE_PIXELS = 4_000_000
MAX_IMAGES = 12
#: The image types a kernel may send for a plot; each is written back as PNG.
IMAGE_TYPES = ("image/png", "image/jpeg")
#: The key of a served-log reference (``course.hub.REF``; repeated to keep this module free
#: of the kernel-side package).
_REF = "$served"
_ESCAPED_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


class Refused(ValueError):
    """A kernel value past a cap; the message is the one-line reason the cell fails with."""


# -- text --------------------------------------------------------------------------------


_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 \
        else f"\\U{code:08x}"


def _clean(value: Any, keep: str) -> str:
    if not isinstance(value, str):
        value = str(value)
    # Lone surrogates (and anything else UTF-8 cannot carry) become U+FFFD; a valid pair of
    # surrogates becomes its character.
    value = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if value.isascii() and value.isprintable():
        return value
    return "".join(ch if ch in keep or (ch.isprintable() and unicodedata.category(ch)
                                        not in _ESCAPED_CATEGORIES)
                   else _escape_char(ch) for ch in value)


def _cut(value: str, limit: int, total: int) -> str:
    """``value`` (the start of a text of ``total`` characters, escaped) cut to ``limit``."""
    if len(value) <= limit and total <= limit:
        return value
    kept = value[:limit]
    return kept + f"… ({max(total - len(kept), 1):,} more characters cut by the grader)"


def text(value: Any, limit: int = MAX_OUTPUT_TEXT) -> str:
    """Kernel text that may span lines, safe for a terminal, a JSON file and a page: only
    newline and tab are kept as they are; at most ``limit`` characters (plus a note)."""
    value = value if isinstance(value, str) else str(value)
    return _cut(_clean(value[:limit], "\n\t"), limit, len(value))


def line(value: Any, limit: int = MAX_NAME) -> str:
    """Kernel text as one line: :func:`text` with line breaks escaped too."""
    value = value if isinstance(value, str) else str(value)
    return _cut(_clean(value[:limit], ""), limit, len(value))


def flags(found: Iterable[Any]) -> list[str]:
    """Review flags as the grader keeps them: each one line, capped, no duplicates, at most
    :data:`MAX_FLAGS` (and a last flag that says how many more there were)."""
    out: list[str] = []
    extra = 0
    for item in found:
        flag = line(item, MAX_NAME)
        if flag in out:
            continue
        if len(out) >= MAX_FLAGS:
            extra += 1
            continue
        out.append(flag)
    if extra:
        out.append(f"and {extra:,} more changes (not listed)")
    return out


# -- records -----------------------------------------------------------------------------


def check_record(record: Any) -> None:
    """Raise :class:`Refused` for a record past a cap: nesting, value count, references,
    or a key that is not a string. Walks the record once, iteratively."""
    stack: list[tuple[Any, int]] = [(record, 0)]
    nodes = refs = 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise Refused(f"the cell's record holds more than {MAX_NODES:,} values")
        if depth > MAX_DEPTH:
            raise Refused(f"the cell's record nests deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            if _REF in value:
                refs += 1
                if refs > MAX_REFS:
                    raise Refused(f"the cell's record names the fake API's log more than "
                                  f"{MAX_REFS} times")
            for k, v in value.items():
                if not isinstance(k, str):
                    raise Refused("the cell's record has a key that is not a string")
                stack.append((v, depth + 1))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
        elif not (value is None or isinstance(value, bool | int | float | str)):
            raise Refused(f"the cell's record holds a {type(value).__name__}, not JSON")


def shown(value: Any, conversion: int = -1) -> str:
    """How a judge's message shows a value (``conversion`` as in an f-string: -1 or
    ``ord("s")`` for str, ``ord("r")`` for repr, ``ord("a")`` for ascii): at most about
    :data:`SHOW` characters, built without making the whole text first, and marked
    (:data:`OPEN` ... :data:`CLOSE`) as text that may have come from the kernel."""
    if conversion in (-1, ord("s")) and isinstance(value, str):
        text_ = value[:SHOW] + (f"…(+{len(value) - SHOW:,})" if len(value) > SHOW else "")
    elif conversion in (-1, ord("s")) and not isinstance(value, list | dict | tuple):
        text_ = _brief_other(value, str)
    else:
        text_ = _brief(value, SHOW)
        if conversion == ord("a"):
            text_ = text_.encode("ascii", "backslashreplace").decode("ascii")
    return OPEN + text_.replace(OPEN, "").replace(CLOSE, "") + CLOSE


def _brief_other(value: Any, how: Any) -> str:
    try:
        text_ = how(value)
    except Exception as exc:  # noqa: BLE001 - a value whose str or repr raises
        return f"<{type(value).__name__} that cannot be shown: {type(exc).__name__}>"
    return text_ if len(text_) <= SHOW else text_[:SHOW] + "…"


def _brief(value: Any, room: int) -> str:
    """At most about ``room`` characters of ``repr(value)``, containers included."""
    if isinstance(value, str):
        shown_ = str.__repr__(str(value[:room]))
        return shown_ if len(value) <= room else shown_ + f"…(+{len(value) - room:,})"
    if isinstance(value, list | tuple | dict):
        items = list(value.items()) if isinstance(value, dict) else list(value[:room])
        parts: list[str] = []
        used = 2
        for item in items:
            if used >= room:
                parts.append(f"…{len(value) - len(parts):,} more")
                break
            if isinstance(value, dict):
                piece = f"{_brief(item[0], room - used)}: {_brief(item[1], room - used)}"
            else:
                piece = _brief(item, room - used)
            parts.append(piece)
            used += len(piece) + 2
        body = ", ".join(parts)
        if isinstance(value, dict):
            return "{" + body + "}"
        return "(" + body + ")" if isinstance(value, tuple) else "[" + body + "]"
    return _brief_other(value, repr)[:room + 1]


# -- what the kernel could know, and finding it ---------------------------------------------

#: A secret is found by any run of this many characters (whitespace collapsed) of a line.
WINDOW = 16
_B64 = re.compile(r"[A-Za-z0-9+/=_-]{12,}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){8,}")
_ESCAPES = re.compile(r"(?:%[0-9a-fA-F]{2}|\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[ntr]))"
                      r"(?:[^\s%\\]{0,3}(?:%[0-9a-fA-F]{2}|\\(?:x[0-9a-fA-F]{2}|"
                      r"u[0-9a-fA-F]{4}|[ntr])))*")


def _squash(value: str) -> str:
    return " ".join(value.split())


def _windows(value: str) -> set[str]:
    value = _squash(value)
    return {value[i:i + WINDOW] for i in range(max(0, len(value) - WINDOW + 1))}


class Secrets:
    """What a kernel could have learnt while it was graded: the lines of the hidden record
    parts sent to it (judges never enter it). :meth:`found` tells whether a kernel value
    quotes one of them, in plain text or in a common encoding. Windows that the notebook
    also shows in the open are not secret."""

    def __init__(self, record_lines: Iterable[str], public: Iterable[str] = ()) -> None:
        shown: set[str] = set()
        for text_ in public:
            shown |= _windows(text_)
        self.windows = {w for ln in record_lines for w in _windows(ln)} - shown

    def __bool__(self) -> bool:
        return bool(self.windows)

    def _plain(self, value: str) -> bool:
        return bool(self.windows) and not self.windows.isdisjoint(_windows(value))

    def found(self, value: str) -> bool:
        """``value`` quotes a secret line as is, reversed, in ROT13, URL or backslash
        escapes, base64 (either alphabet) or hex."""
        if not self.windows:
            return False
        tries = [value, value[::-1], codecs.encode(value, "rot13"), urllib.parse.unquote(value)]
        try:
            tries.append(codecs.decode(value.encode("latin-1", "ignore"), "unicode_escape"))
        except (UnicodeDecodeError, ValueError):
            pass
        for run in _B64.findall(value.replace("\n", "")):
            for shift in range(4):
                chunk = run[shift:]
                chunk = chunk[:len(chunk) - len(chunk) % 4]
                for decode in (base64.b64decode, base64.urlsafe_b64decode):
                    try:
                        tries.append(decode(chunk).decode("utf-8", "replace"))
                    except (binascii.Error, ValueError):
                        pass
        for run in _HEX.findall(value):
            tries.append(bytes.fromhex(run).decode("utf-8", "replace"))
        return any(self._plain(t) for t in tries if isinstance(t, str))

    def redact(self, value: str) -> str:
        """``value`` with every run that quotes a secret (:meth:`found`) replaced by
        "‹…›": runs of plain, reversed or ROT13 text window by window, and encoded runs
        (base64, hex, URL or backslash escapes) whole."""
        if not self.windows:
            return value
        value = _squash(value)
        hit = [False] * len(value)
        for form, back in ((value, False), (value[::-1], True),
                           (codecs.encode(value, "rot13"), False)):
            for i in range(max(0, len(form) - WINDOW + 1)):
                if form[i:i + WINDOW] in self.windows:
                    lo, hi = (len(value) - i - WINDOW, len(value) - i) if back else \
                        (i, i + WINDOW)
                    hit[lo:hi] = [True] * (hi - lo)
        for pattern in (_B64, _HEX, _ESCAPES):
            for match in pattern.finditer(value):
                if self.found(match.group(0)):
                    hit[match.start():match.end()] = [True] * (match.end() - match.start())
        out, i = [], 0
        while i < len(value):
            if hit[i]:
                while i < len(value) and hit[i]:
                    i += 1
                out.append("‹…›")
            else:
                out.append(value[i])
                i += 1
        return "".join(out)


NO_SECRETS = Secrets(())


def judge_message(message: Any, secrets: Secrets = NO_SECRETS) -> str:
    """A judge's failure message as a student may read it, one line of at most
    :data:`MAX_MESSAGE` characters: each value it shows (marked by :func:`shown`) that
    quotes what the kernel saw of the hidden tests becomes a note, and so does any other
    run of the message that quotes it (:meth:`Secrets.redact`)."""
    raw = " ".join(str(message)[:20 * MAX_MESSAGE].split())

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        return "‹a value that quotes the hidden test›" if secrets.found(inner) else inner

    spans = re.compile(f"{OPEN}([^{OPEN}{CLOSE}]*){CLOSE}")
    kept = raw
    while spans.search(kept):  # innermost first, should a shown value hold another
        kept = spans.sub(one, kept)
    kept = secrets.redact(kept.replace(OPEN, "").replace(CLOSE, ""))
    return line(kept, MAX_MESSAGE)


# -- errors the kernel reports for a test cell -----------------------------------------------


def known_exception(name: Any) -> str:
    """``name`` when it names an exception class the grader knows (Python's builtins, the
    SDK's, the course's), else ""."""
    if not isinstance(name, str) or not name.isidentifier():
        return ""
    if isinstance(getattr(builtins, name, None), type) and issubclass(
            getattr(builtins, name), BaseException):
        return name
    return name if name in _library_exceptions() else ""


_LIBRARY: set[str] | None = None


def _library_exceptions() -> set[str]:
    global _LIBRARY
    if _LIBRARY is None:
        import sys

        import anthropic

        names = {n for n in dir(anthropic) if isinstance(getattr(anthropic, n), type)
                 and issubclass(getattr(anthropic, n), BaseException)}
        for mname, mod in list(sys.modules.items()):
            if mname.split(".")[0] == "course" and not mname.startswith("course.grading"):
                for n, v in list(vars(mod).items()):
                    if isinstance(v, type) and issubclass(v, BaseException) and \
                            v.__module__ == mname:
                        names.add(n)
        _LIBRARY = names
    return _LIBRARY


def visible_messages(visible: str) -> list[tuple[list[str], str]]:
    """The messages of the asserts and raises in a cell's visible checks, as (the message's
    literal pieces, between which the kernel put values; the message with each value left
    out as "…")."""
    try:
        tree = syntax.parse(visible)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        msg = node.msg if isinstance(node, ast.Assert) else None
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
            msg = node.exc.args[0]
        if isinstance(msg, ast.Constant) and isinstance(msg.value, str):
            out.append(([msg.value], msg.value))
        elif isinstance(msg, ast.JoinedStr):
            pieces, words = [""], []
            for part in msg.values:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    pieces[-1] += part.value
                    words.append(part.value)
                else:
                    pieces.append("")
                    words.append("…")
            out.append((pieces, "".join(words)))
    return out


def _fits(pieces: list[str], value: str) -> bool:
    """``value`` is ``pieces`` joined with anything between them (leftmost matching of each
    piece, which finds a match whenever one exists; linear, no backtracking)."""
    if len(pieces) == 1:
        return value == pieces[0]
    first, *middle, last = pieces
    if not value.startswith(first) or not value.endswith(last) or \
            len(value) < len(first) + len(last):
        return False
    at, end = len(first), len(value) - len(last)
    for piece in middle:
        found = value.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def error_verdict(ename: Any, evalue: Any, visible: list[tuple[list[str], str]]
                  ) -> tuple[str, str]:
    """What a student reads when the kernel reported an error in a test cell that it ran
    with a hidden part: the exception's class name when the grader knows it (else "Error"),
    and a message of grader-written words only: a visible check's own message (its values
    left out) when the kernel's message is one, else a pointer to the visible checks."""
    name = known_exception(ename)
    text_ = evalue if isinstance(evalue, str) else ""
    if name == "NotImplementedError":
        return name, ("a function this test calls is not written yet (it still raises "
                      "NotImplementedError)")
    for pieces, words in visible:
        if _fits(pieces, text_):
            return name or "Error", line(words, MAX_MESSAGE)
    if not name:
        return "Error", ("your code raised an exception of its own class; run this "
                         "notebook's visible checks (Validate) to see it")
    return name, (f"your code or a visible check raised {name}; run this notebook's "
                  "visible checks (Validate) to see its message")


# -- images ------------------------------------------------------------------------------


def image(data: Any, mime: str = "image/png") -> str:
    """A kernel's base64 ``mime`` image as the base64 of a PNG the grader wrote itself.

    Only pixels cross: the image is decoded (its header first, so its sides and pixel count
    are checked before any pixel is), converted to RGB or RGBA and encoded again, which
    drops every chunk, comment and trailing byte the kernel put in the file. Raises
    :class:`Refused` with the reason for anything else: a wrong type, too many bytes or
    pixels, or bytes that are not an image of that type."""
    import io

    from PIL import Image, UnidentifiedImageError

    if mime not in IMAGE_TYPES:
        raise Refused(f"an image of type {line(mime, 40)} is not kept (only PNG and JPEG)")
    if isinstance(data, list):
        data = "".join(part for part in data if isinstance(part, str))
    if not isinstance(data, str):
        raise Refused("an image whose data is not base64 text is not kept")
    if len(data) > MAX_IMAGE_BYTES:
        raise Refused(f"an image of {len(data):,} bytes is not kept "
                      f"(the limit is {MAX_IMAGE_BYTES:,})")
    try:
        raw = base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        raise Refused("an image whose data is not valid base64 is not kept") from None
    kind = "PNG" if mime == "image/png" else "JPEG"
    try:
        with Image.open(io.BytesIO(raw), formats=[kind]) as im:
            width, height = im.size
            if max(width, height) > MAX_IMAGE_SIDE or width * height > MAX_IMAGE_PIXELS:
                raise Refused(f"an image of {width}×{height} pixels is not kept (at most "
                              f"{MAX_IMAGE_SIDE} a side and {MAX_IMAGE_PIXELS:,} in all)")
            im.load()
            pixels = im.convert("RGBA" if "A" in im.getbands() or "transparency" in im.info
                                else "RGB")
    except Refused:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError,
            Image.DecompressionBombError):
        raise Refused(f"an image that is not a readable {kind} is not kept") from None
    out = io.BytesIO()
    pixels.save(out, format="PNG", optimize=False)
    return base64.b64encode(out.getvalue()).decode("ascii")


# -- what a worker hands the parent ------------------------------------------------------------


def outcome(out: Any) -> Any:
    """An :class:`.engine.Outcome` as the parent keeps it: its reason and review flags
    passed through :func:`line` and :func:`flags` once more (a worker on a cluster is
    another machine, and these texts started in a kernel)."""
    out.error = line(out.error, 2_000) if out.error else ""
    out.review = flags(out.review) if isinstance(out.review, list) else \
        ["the worker sent review flags that are not a list"]
    for name in ("student", "assignment", "notebook"):
        setattr(out, name, line(getattr(out, name), 200))
    return out
