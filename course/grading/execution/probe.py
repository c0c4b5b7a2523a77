"""Detect tampering inside a grading kernel before each graded test cell runs.

A sandbox cannot stop code in an answer cell from changing the kernel it runs in: an
input transformer that rewrites the tests, a replaced builtin or stdlib function, a
monkeypatched ``course`` module, a trace hook or an IPython event callback. Before each
graded test cell the grader asks the kernel to describe itself with :data:`PROBE`,
evaluated as a ``user_expression`` (those bypass input transformers), and compares the
answer with the one taken before the first cell ran (:func:`changes`).

Two rules for "tampered":

* anything the kernel had before the first cell (hooks, transformers, event callbacks, the
  methods of the shell, the kernel, its ``Session`` and its display machinery, ``sys``
  hooks, builtins, the callables of watched modules) that is no longer the same object; no
  file name is trusted for those;
* anything added since whose code does not come from a read-only folder of the environment.

The expression reads no name from the student's namespace: it reaches ``sys`` through the
import machinery's own classes, so a shadowed ``exec`` or ``__import__`` cannot answer for it.
A canary cell that must fail (:func:`canary`) catches a kernel that swallows errors. Grades
do not depend on any of this (the grader judges records, see :mod:`.engine`): a finding is a
flag for an instructor to review.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from . import boundary

#: Modules whose functions the tests rely on; ``course`` and its submodules are always watched.
WATCHED = ("json", "re", "math", "copy", "collections", "functools", "itertools", "operator",
           "time", "random", "types", "inspect", "typing", "dataclasses", "os", "sys", "io",
           "traceback", "unittest", "contextlib", "socket", "warnings", "hashlib", "string",
           "statistics", "textwrap", "enum", "abc", "asyncio", "anthropic", "httpx2",
           "IPython", "ipykernel")

_PROBE_SRC = r'''
import sys as _s, builtins as _b, functools as _f, types as _ty
def _origin(o, depth=0):
    if depth > 4:
        return "?"
    if isinstance(o, _f.partial):
        return _origin(o.func, depth + 1)
    f = getattr(o, "__func__", None)
    if f is not None and f is not o:
        return _origin(f, depth + 1)
    code = None if isinstance(o, type) else getattr(o, "__code__", None)
    if isinstance(code, _ty.CodeType):
        return code.co_filename
    t = o if isinstance(o, type) else type(o)
    if t.__module__ == "builtins":
        return "<builtin>" if not isinstance(o, type) or o.__module__ == "builtins" else "?"
    m = _s.modules.get(t.__module__)
    f = getattr(m, "__file__", None)
    if f:
        return f
    spec_origin = getattr(getattr(m, "__spec__", None), "origin", None)
    return "<builtin>" if spec_origin in ("built-in", "frozen") else "?"
def _ok(o, dataclass_method=False):
    try:
        f = _origin(o)
    except Exception:
        return False
    if f == "<string>" and dataclass_method:
        return True  # dataclasses compile __init__, __eq__ and friends from strings
    return f == "<builtin>" or f.startswith("<frozen ") or any(
        f.startswith(r + "/") for r in ROOTS)
def _name(o):
    return getattr(o, "__qualname__", None) or getattr(o, "__name__", None) or type(o).__name__
found = []
ip = _s.modules["IPython"].get_ipython()
for attr in ("input_transformers_cleanup", "input_transformers_post", "ast_transformers"):
    for t in list(getattr(ip, attr, [])):
        if not _ok(t):
            found.append("input transformer " + _name(t))
itm = getattr(ip, "input_transformer_manager", None)
if itm is not None and not _ok(type(itm)):
    found.append("input transformer manager replaced")
for attr in ("cleanup_transforms", "line_transforms", "token_transformers"):
    for t in list(getattr(itm, attr, [])):
        if not _ok(t):
            found.append("input transformer " + _name(t))
for event, cbs in ip.events.callbacks.items():
    for cb in cbs:
        if not _ok(cb):
            found.append("IPython event hook on " + event + ": " + _name(cb))
import threading as _t
for what, hook in (("sys.settrace", _s.gettrace()), ("sys.setprofile", _s.getprofile()),
                   ("threading.settrace", getattr(_t, "_trace_hook", None)),
                   ("threading.setprofile", getattr(_t, "_profile_hook", None))):
    if hook is not None:
        found.append("trace hook " + what + "(" + _name(hook) + ")")
for what, hook in (("sys.excepthook", _s.excepthook), ("sys.displayhook", _s.displayhook),
                   ("sys.stdout", _s.stdout), ("sys.stderr", _s.stderr)):
    if not _ok(hook):
        found.append(what + " replaced")
for hook in list(_s.meta_path) + list(_s.path_hooks):
    if not _ok(hook):
        found.append("import hook " + _name(hook))
if getattr(ip, "custom_exceptions", ()):
    found.append("custom exception handler for " + repr(ip.custom_exceptions))
for holder, label in ((ip, "IPython shell"), (getattr(ip, "kernel", None), "kernel")):
    for k, v in list(vars(holder).items()) if holder is not None else []:
        if callable(v) and not isinstance(v, type) and not _ok(v):
            found.append(label + " method " + k + " replaced")
    for cls in type(holder).__mro__ if holder is not None else ():
        for k, v in list(vars(cls).items()):
            if callable(v) and not _ok(v):
                found.append(label + " class " + cls.__name__ + "." + k + " replaced")
for mname, mod in list(_s.modules.items()):
    top = mname.split(".")[0]
    if mod is None or (top != "course" and mname not in WATCHED):
        continue
    mfile = getattr(mod, "__file__", None)
    if mfile is not None and not any(mfile.startswith(r + "/") for r in ROOTS):
        found.append("module " + mname + " replaced")
        continue
    for k, v in list(vars(mod).items()):
        if mname == "sys" and k.startswith("last_"):
            continue  # IPython records the last exception (a notebook's class) there
        if callable(v) and not _ok(v):
            found.append(mname + "." + k + " replaced")
        if top == "course" and isinstance(v, type) and v.__module__ == mname:
            generated = "__dataclass_fields__" in vars(v)
            for ck, cv in list(vars(v).items()):
                cv = getattr(cv, "__func__", cv)
                dc = generated and ck.startswith("__") and ck.endswith("__")
                if callable(cv) and not _ok(cv, dc):
                    found.append(mname + "." + k + "." + ck + " replaced")
ident = {}
def _keep(label, obj):
    ident[label] = id(obj)
for holder, label in ((ip, "shell"), (getattr(ip, "kernel", None), "kernel"),
                      (getattr(getattr(ip, "kernel", None), "session", None), "Session"),
                      (getattr(ip, "display_pub", None), "display publisher"),
                      (getattr(ip, "displayhook", None), "display hook"),
                      (getattr(ip, "display_formatter", None), "display formatter")):
    if holder is None:
        continue
    for k, v in list(vars(holder).items()):
        if callable(v) and not isinstance(v, type):
            _keep(label + " method " + k, v)
    _keep(label + " class", type(holder))
    for cls in type(holder).__mro__:
        for k, v in list(vars(cls).items()):
            if callable(v):
                _keep(label + " class " + cls.__name__ + "." + k, v)
for what, hook in (("sys.excepthook", _s.excepthook), ("sys.displayhook", _s.displayhook),
                   ("sys.stdout", _s.stdout), ("sys.stderr", _s.stderr)):
    _keep(what, hook)
for mname, mod in list(_s.modules.items()):
    if mod is None or (mname.split(".")[0] != "course" and mname not in WATCHED):
        continue
    for k, v in list(vars(mod).items()):
        if callable(v) and not (mname == "sys" and k.startswith("last_")):
            _keep(mname + "." + k, v)
_r = {"found": sorted(set(found)),
      "builtins": {k: id(v) for k, v in vars(_b).items() if not k.startswith("_")},
      "ident": ident, "nonce": NONCE}
'''


def expression(roots: list[str]) -> tuple[str, str]:
    """A ``user_expression`` that returns the probe's JSON, and the nonce it must echo."""
    nonce = secrets.token_hex(8)
    src = (f"ROOTS = {roots!r}\nWATCHED = {WATCHED!r}\nNONCE = {nonce!r}\n" + _PROBE_SRC)
    # sys from the import machinery's own ModuleSpec class: no name is looked up in the
    # student's namespace (a shadowed exec or __import__ there never sees the probe).
    real_sys = ("[c for c in ().__class__.__mro__[1].__subclasses__() "
                "if c.__name__ == 'ModuleSpec'][0].__init__.__globals__['sys']")
    expr = (f"(lambda s: (lambda b, d: (b.exec({src!r}, d), "
            "s.modules['json'].dumps(d['_r']))[1])"
            "(s.modules['builtins'], {'__builtins__': s.modules['builtins']}))"
            f"({real_sys})")
    return expr, nonce


#: The largest answer the probe may give, in characters (an honest one is about 200,000).
MAX_ANSWER_CHARS = 4_000_000


def read(reply: dict[str, Any], nonce: str) -> dict[str, Any] | None:
    """The probe's answer from an ``execute_reply``; None when it did not answer honestly
    (or sent more than :data:`MAX_ANSWER_CHARS`)."""
    from .. import syntax

    res = reply.get("content", {}).get("user_expressions", {}).get("probe", {})
    if not isinstance(res, dict) or res.get("status") != "ok":
        return None
    try:
        answer = res["data"]["text/plain"]
        if not isinstance(answer, str) or len(answer) > MAX_ANSWER_CHARS:
            return None
        data = json.loads(syntax.literal_eval(answer))
    except (KeyError, ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("nonce") != nonce:
        return None
    for key in ("ident", "builtins"):
        if not isinstance(data.get(key), dict):
            return None
    return data if isinstance(data.get("found"), list) else None


def changes(baseline: dict[str, Any], now: dict[str, Any] | None) -> list[str]:
    """What the submission changed since the baseline, one short phrase each. Every name
    in them comes from the kernel, so they pass :func:`.boundary.flags` (one line each,
    escaped, capped in length and number)."""
    return boundary.flags(_changes(baseline, now))


def _changes(baseline: dict[str, Any], now: dict[str, Any] | None) -> list[str]:
    if now is None:
        return ["the tamper probe got no honest answer from the kernel"]
    out = list(now.get("found", []))
    was, now_ids = baseline.get("ident", {}), now.get("ident", {})
    for label in sorted(set(was) & set(now_ids)):
        if was[label] != now_ids[label]:
            out.append(f"{label} replaced")
    for label in sorted(set(was) - set(now_ids)):
        out.append(f"{label} deleted")
    before, after = baseline.get("builtins", {}), now.get("builtins", {})
    for name in sorted(before):
        if name not in after:
            out.append(f"builtin {name} deleted")
        elif after[name] != before[name]:
            out.append(f"builtin {name} replaced")
    return out


def canary() -> tuple[str, str]:
    """Code that must fail with AssertionError carrying a fresh nonce, and that nonce."""
    nonce = secrets.token_hex(8)
    return f"raise AssertionError('grader canary {nonce}')", nonce
