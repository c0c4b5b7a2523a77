"""Which optional extra of this package provides a module a notebook could not import.

The framework tier needs the ``frameworks`` extra (LangGraph, langchain-core); every other
notebook runs without it. When a notebook stops on ``ModuleNotFoundError``, the instructor
commands say which ``pip install`` brings the module, from the extras this package declares
in its installed metadata (``pyproject.toml``'s ``[project.optional-dependencies]``), not
from a list kept here.
"""

from __future__ import annotations

import re
from importlib import metadata

from packaging.requirements import InvalidRequirement, Requirement

#: The distribution name of this package, as ``pip`` knows it.
DISTRIBUTION = "owning-the-agent-loop"
_MISSING = re.compile(r"No module named '([^']+)'")


def _norm(name: str) -> str:
    """A distribution or module name as PEP 503 compares them (``langchain-core`` and
    ``langchain_core`` are one name)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def missing_module(message: str) -> str | None:
    """The module a ``ModuleNotFoundError`` message names (``"No module named 'x.y'"``)."""
    found = _MISSING.search(message)
    return found.group(1) if found else None


def extra_for(module: str) -> str | None:
    """The optional extra whose requirements include a distribution named like
    ``module``'s top-level package (or its parent, for ``langgraph.checkpoint.sqlite``),
    or None when no extra provides it."""
    try:
        dist = metadata.metadata(DISTRIBUTION)
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return None
    parts = module.split(".")
    wanted = {_norm("-".join(parts[:n])) for n in range(len(parts), 0, -1)}
    for extra in dist.get_all("Provides-Extra") or []:
        for line in requires:
            try:
                req = Requirement(line)
            except InvalidRequirement:
                continue
            if req.marker is not None and req.marker.evaluate({"extra": extra}) \
                    and _norm(req.name) in wanted:
                return extra
    return None


def install_hint(module: str) -> str:
    """One line: the module is missing, and what to install to get it."""
    extra = extra_for(module)
    if extra is None:
        return f"needs the module {module!r}, which is not installed in this environment"
    return (f"needs the module {module!r} from the optional {extra!r} extra, which is not "
            f"installed: pip install -e \".[{extra}]\" (./dev installs it)")
