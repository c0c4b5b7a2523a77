"""Defer ``rfc3987_syntax``'s grammar build until an IRI is actually checked.

``jsonschema`` (which nbformat, nbgrader and jupyter-events import) imports
``rfc3987_syntax.is_valid_syntax`` when it is imported itself, to check the ``iri`` format.
rfc3987-syntax 1.1.0 compiles 38 Lark grammars at import: about 4 s of one core on this
course's machines, paid by every process that reads a notebook (the instructor's command, the
grader's fork server, every nbgrader command). jupyter-events installs it through
``jsonschema[format-nongpl]``, so the course cannot leave it out. (Upstream: jsonschema issue
#1428, "Lazy import rfc3987_syntax", and PR #1521, which moves to the lazy-loading fork.)

:func:`defer` puts a stand-in module in ``sys.modules`` whose ``is_valid_syntax`` imports the
real module on its first call, and whose other names load it on first access. IRI checking
works as before; only its cost moves to the first IRI checked, which no notebook schema has.
``bench/import_time.py`` measures the saving.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

NAME = "rfc3987_syntax"
_lock = threading.Lock()


class _Deferred(types.ModuleType):
    """Stands in for ``rfc3987_syntax`` until one of its names is used."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(_real(), attr)


def _real() -> types.ModuleType:
    with _lock:
        current = sys.modules.get(NAME)
        if isinstance(current, _Deferred):
            del sys.modules[NAME]
            try:
                return importlib.import_module(NAME)
            except BaseException:
                sys.modules[NAME] = current
                raise
        return importlib.import_module(NAME)


def _is_valid_syntax(*args: Any, **kwargs: Any) -> Any:
    return _real().is_valid_syntax(*args, **kwargs)


def defer() -> bool:
    """Install the stand-in if ``rfc3987_syntax`` is installed and not imported yet; returns
    whether it did."""
    if NAME in sys.modules:
        return False
    try:
        if importlib.util.find_spec(NAME) is None:
            return False
    except (ImportError, ValueError):
        return False
    stand_in = _Deferred(NAME, __doc__)
    stand_in.is_valid_syntax = _is_valid_syntax  # type: ignore[attr-defined]
    sys.modules[NAME] = stand_in
    return True
