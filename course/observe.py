"""What a graded test cell records in the kernel, for the grader to judge outside it.

A hidden test has two halves. The half that runs in the student's kernel only *observes*:
it calls the student's functions and keeps what they returned or raised, what the fake API
received and what the fake clock read, as plain JSON (:func:`record`). The other half, the
judge, runs in the grader's own process on that record and decides the cell's points; it
never enters the kernel, so no expected value, request shape or threshold is there to be
read, echoed or rewritten.

:func:`emit` hands a record to the grader as one ``display_data`` output of type
:data:`RECORD_MIME`, tagged with a nonce the grader chose for that cell and that run. The
grader appends the call as the cell's last statement, so a record with the right nonce
also proves the cell ran to its end.

Everything here is plain data handling; nothing in it knows what a right answer is.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

#: The MIME type of a record output. The grader takes exactly one per test cell.
RECORD_MIME = "application/vnd.owning-the-agent-loop.record+json"


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-ready data: tuples and sets become lists (sets sorted), SDK models
    and dataclasses become dicts, numpy values become numbers and lists, exceptions become
    ``{"type", "message"}``, a served fake's log becomes a reference to the grader's copy
    (:mod:`course.hub`), floats that
    JSON cannot carry become strings; anything else becomes its ``repr``."""
    if depth > 60:
        return "<nested too deeply>"
    if value is None or isinstance(value, bool | int | str):
        return value if type(value) in (bool, int, str, type(None)) else _plain_subclass(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(float(value))
    if isinstance(value, Mapping):
        return {str(k): _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        # A served fake's log (:class:`course.hub.Requests`, which only exists once the hub
        # is imported; the grader imports this module without it): the grader holds the
        # real one.
        hub = sys.modules.get("course.hub")
        if hub is not None and isinstance(value, hub.Requests):
            return value.served_ref()
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        items = [_plain(v, depth + 1) for v in value]
        return sorted(items, key=lambda x: json.dumps(x, sort_keys=True))
    if isinstance(value, BaseException):
        return {"type": type(value).__name__, "message": str(value)}
    if type(value).__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        return _plain(value.tolist(), depth + 1)  # numpy scalars and arrays, as numbers
    dump = getattr(value, "model_dump", None)  # the SDK's pydantic models
    if callable(dump):
        return _plain(dump(mode="json", exclude_none=False), depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), depth + 1)
                for f in dataclasses.fields(value)}
    return repr(value)


def _plain_subclass(value: Any) -> Any:
    """A ``str``/``int``/``bool`` subclass as its base value: a subclass may override
    ``__eq__``, and the judge compares values, not objects."""
    for base in (bool, int, str):
        if isinstance(value, base):
            return base(value)
    return repr(value)


def record(**values: Any) -> dict[str, Any]:
    """The observations of one test cell as plain JSON data (see :func:`_plain`)."""
    return json.loads(json.dumps({k: _plain(v) for k, v in values.items()}))


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Call ``fn`` and keep what happened: ``{"value": ..., "raised": None}`` or
    ``{"value": None, "raised": describe(exc)}``. ``NotImplementedError`` (the untouched
    stub) is let through, like everything that is not an ``Exception``."""
    try:
        value = fn(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - the exception itself is what is recorded
        return {"value": None, "raised": describe(exc)}
    return {"value": _plain(value), "raised": None}


def describe(exc: BaseException) -> dict[str, Any]:
    """An exception as plain data: ``type``, the nearest class Python or the course defines
    (what an ``except`` of that class would catch); ``class``, the one raised; ``mro``, its
    whole class chain as ``module.qualname`` (``"anthropic.APIStatusError"`` is in a
    ``RateLimitError``'s); ``status``, its HTTP status code if it has one; ``message``."""
    status = getattr(exc, "status_code", None)
    return {"type": _known_type(exc), "class": type(exc).__name__,
            "mro": [f"{c.__module__}.{c.__qualname__}" for c in type(exc).__mro__],
            "status": status if isinstance(status, int) else None, "message": str(exc)}


def _known_type(exc: BaseException) -> str:
    """The name of the nearest class of ``exc`` that the course or Python defines: a
    student's ``class Full(KeyError)`` is recorded as ``KeyError``, as ``except KeyError``
    would have caught it."""
    for cls in type(exc).__mro__:
        module = getattr(cls, "__module__", "")
        if module == "builtins" or module.split(".")[0] in ("course", "anthropic"):
            return cls.__name__
    return type(exc).__name__


#: The seed of this submission's hidden inputs (see :func:`hidden_seed`).
_seed = 0


def hidden_seed() -> int:
    """The seed a hidden test draws its inputs from: ``random.Random(hidden_seed())``.

    The grader chooses one per submission and tells both halves of a hidden test: the
    kernel (before the first test cell, :func:`use_seed`) and the judge (in the grader's
    own process, for the length of one judge). The judge computes what it expects from its
    own draws, never from the kernel's, so a kernel that changes its seed only tests its
    code on inputs the judge does not expect; and inputs a student saw on one feedback page
    are not the next submission's. 0 where no grader set one (a plain notebook run)."""
    return _seed


def use_seed(seed: int) -> None:
    """Make :func:`hidden_seed` return ``seed`` from now on in this process."""
    global _seed
    _seed = int(seed)


def hidden_inputs(**choices: Sequence[Any]) -> SimpleNamespace:
    """One value drawn from each sequence of ``choices``, the same in both halves of a
    hidden test for one submission, and another submission's draws unknowable from it::

        h = hidden_inputs(retry_after=range(31, 60), cap=(10.0, 15.0, 20.0))
        ... h.retry_after ...

    The record part and the judge each make the same call (copy the line); the judge then
    computes what it expects from ``h``. The draws depend on :func:`hidden_seed` and the
    names only, not on the order of the arguments nor on any other cell."""
    draw = random.Random(f"{_seed}:{','.join(sorted(choices))}")
    return SimpleNamespace(**{name: draw.choice(choices[name]) for name in sorted(choices)})


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """:func:`hidden_seed` is ``seed`` inside the block, and what it was after it."""
    before = _seed
    use_seed(seed)
    try:
        yield
    finally:
        use_seed(before)


def emit(rec: Mapping[str, Any], nonce: str) -> None:
    """Hand ``rec`` to the grader as this cell's record, tagged with ``nonce``."""
    from IPython.display import display

    payload = {"nonce": nonce, "record": _plain(rec)}
    display({RECORD_MIME: payload}, raw=True)
