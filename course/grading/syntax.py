"""The grader's one way into Python syntax trees: parse, literal_eval and compiling a tree,
each under one process-wide lock.

A Dask worker grades several submissions at once on threads of one process. CPython 3.11
converts between its C syntax tree and Python's ``ast`` objects with a recursion counter
kept in interpreter-wide state, not per thread; two threads converting at once can leave
it unbalanced, and the next conversion raises ``SystemError: AST constructor recursion
depth mismatch`` (CPython issue gh-106905, Python/Python-ast.c). One lock around every
conversion the grader makes keeps a student's grade from depending on a classmate's
timing. Walking, transforming and unparsing trees is plain Python and needs no lock.

``tests/test_syntax.py`` proves no other module under ``course/grading`` calls
``ast.parse``, ``ast.literal_eval`` or ``compile`` on a tree directly.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, one conversion at a time."""
    with _LOCK:
        return ast.parse(source, filename)


def literal_eval(text: str) -> Any:
    """``ast.literal_eval(text)``, one conversion at a time."""
    with _LOCK:
        return ast.literal_eval(text)


def compile_tree(tree: ast.AST, filename: str, mode: str = "exec") -> Any:
    """``compile(tree, filename, mode)`` for a syntax tree, one conversion at a time."""
    with _LOCK:
        return compile(tree, filename, mode)
