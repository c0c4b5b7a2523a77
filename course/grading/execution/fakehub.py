"""The grader's hub of fakes: world fakes built and kept in the grader's worker process, and
served to one kernel over a unix socket in its scratch folder.

The kernel's side is :mod:`course.hub`. The hub answers three things:

* ``POST /fakes`` with ``{"factory": "module:qualname", "args": [...], "kwargs": {...}}``
  builds the fake with a factory that :func:`course.hub.served` marked (in a module under
  ``course.worlds``; anything else is refused) and answers ``{"id": n}``;
* anything under ``/fakes/<n>/v1/...`` is answered by fake ``n``, exactly as
  ``FakeAPI.client()`` would be (same validation, same replies);
* ``GET /fakes/<n>/requests`` sends fake ``n``'s request log, for the visible checks.

:meth:`Hub.resolve` puts the logs the hub holds in place of the references a record keeps
(:data:`course.hub.REF`), as :class:`course.hub.ServedLog`; only fakes built during the
cell being judged may be named, and each fake's log is made once per cell, however often
the record names it (:data:`.boundary.MAX_REFS` at most).

The hub is a guarded service, since the kernel is its only client. Before a factory runs,
its call is checked against the factory's signature and annotations (:func:`check_call`):
types, integers within the factory's declared bounds (``course.hub.served(bounds=...)``,
else :data:`INT_RANGE`), at most :data:`MAX_ARG_ITEMS` values and :data:`MAX_ARG_BYTES` of
JSON. Each submission has a budget: :data:`MAX_FAKES` fakes, request bodies of at most
32 MB each (the Messages API's own limit: docs api/errors, ``request_too_large``) and
:data:`MAX_LOG_BYTES` held in all, and :data:`MAX_CPU_SECONDS` of the hub's CPU time; past
it the hub answers 413 (429 for time) and builds or keeps nothing more. Every connection's
thread ends when the hub does (:meth:`Hub.__exit__` closes their sockets and joins them),
the kernel's death included.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import socket as sockets
import socketserver
import threading
import time
import types
import typing
from collections import abc
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from course import hub
from course.fakes import FakeAPI, answer_http, send_http
from course.wire import Reply, error_body

from . import boundary

SOCKET_NAME = "fake-hub.sock"
MAX_FAKES = 400
MAX_BODY = 32_000_000
#: Request bodies a submission's fakes may hold in all. Parsed, a body takes several times
#: its size in this process, so this keeps a worker far under 1 GiB.
MAX_LOG_BYTES = 48_000_000
MAX_CONNECTIONS = 32
#: CPU time the hub may spend for one submission (building fakes and answering requests).
MAX_CPU_SECONDS = 120.0
#: A served factory's arguments: at most this many values and bytes of JSON, and integers
#: in this range unless the factory declares its own bounds.
MAX_ARG_ITEMS = 2_000
MAX_ARG_BYTES = 1_000_000
INT_RANGE = (-1_000_000, 1_000_000)
TOP_INT_RANGE = (0, 1_000)
_FAKE_PATH = re.compile(r"^/fakes/(\d+)(/.*)?$")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """At most :data:`MAX_CONNECTIONS` open at once: one more is closed unanswered, so a
    kernel cannot make the grader's worker start threads without end."""

    daemon_threads = True

    def __init__(self, path: str, handler: type[BaseHTTPRequestHandler]) -> None:
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.lock = threading.Lock()
        self.open_requests: dict[threading.Thread, Any] = {}
        super().__init__(path, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self.lock:
            self.open_requests[threading.current_thread()] = request
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.lock:
                self.open_requests.pop(threading.current_thread(), None)
            self.slots.release()

    def end_all(self, wait: float = 5.0) -> None:
        """Close every connection still open and join its thread (at most ``wait`` s in
        all): none outlives the submission it served."""
        with self.lock:
            open_now = dict(self.open_requests)
        for request in open_now.values():
            try:
                request.shutdown(sockets.SHUT_RDWR)
            except OSError:
                pass
        end = time.monotonic() + wait
        for thread in open_now:
            thread.join(timeout=max(0.0, end - time.monotonic()))


class Hub:
    """The fakes of one submission's kernel. Use as a context manager around the kernel's
    life; :attr:`socket` is the path the grader gives the kernel (:func:`course.hub.activate`)."""

    def __init__(self, folder: Path) -> None:
        self.socket = str(folder / SOCKET_NAME)
        self.fakes: list[FakeAPI] = []
        self.held = 0
        self.cpu = 0.0
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Hub:
        self._server = _Server(self.socket, _handler_for(self))
        os.chmod(self.socket, 0o666)  # the sandboxed kernel runs as another user
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.01}, name="fake hub")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.end_all()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            os.unlink(self.socket)
        except OSError:
            pass

    def mark(self) -> int:
        """How many fakes exist now: a cell's record may name only fakes built after it."""
        return len(self.fakes)

    def spend(self, seconds: float) -> None:
        """Count CPU time the hub spent for this submission."""
        with self._lock:
            self.cpu += seconds

    def create(self, factory: Any, args: Any, kwargs: Any) -> int:
        name = boundary.line(factory, 120)
        if not isinstance(factory, str) or not isinstance(args, list) or (
                not isinstance(kwargs, dict)):
            raise hub.HubError(f"not a world factory the grader serves: {name!r}")
        module = factory.partition(":")[0]
        if not module.startswith("course.worlds.") or not re.fullmatch(
                r"[A-Za-z0-9_.]+:[A-Za-z0-9_.]+", factory):
            raise hub.HubError(f"not a world factory the grader serves: {name!r}")
        importlib.import_module(module)
        if factory not in hub.FACTORIES:
            raise hub.HubError(f"not a world factory the grader serves: {name!r}")
        build, part = hub.FACTORIES[factory]
        with self._lock:
            if len(self.fakes) >= MAX_FAKES:
                raise hub.HubError(f"more than {MAX_FAKES} fakes in one submission")
        check_call(factory, args, kwargs)
        fake = build(*args, **kwargs)
        if part is not None and isinstance(fake, tuple) and len(fake) > part:
            fake = fake[part]
        if not isinstance(fake, FakeAPI):
            raise hub.HubError(f"{factory} did not build a FakeAPI")
        with self._lock:
            self.fakes.append(fake)
            return len(self.fakes) - 1

    def resolve(self, record: Any, since: int = 0) -> Any:
        """``record`` with every log reference replaced by the hub's own log, one shared
        :class:`Log` per fake however often it is named. Raises
        :class:`course.hub.HubError` for a reference to no fake of this cell. The record
        has passed :func:`.boundary.check_record` (depth and references capped)."""
        logs: dict[int, Log] = {}

        def one(value: Any) -> Any:
            if isinstance(value, dict):
                if hub.REF in value:
                    n, field = value.get(hub.REF), value.get("field")
                    if set(value) != {hub.REF, "field"} or field != "requests" or \
                            type(n) is not int or not since <= n < len(self.fakes):
                        raise hub.HubError(f"the record names fake "
                                           f"{boundary.line(repr(n), 40)}, which this cell "
                                           "did not build through the grader")
                    if n not in logs:
                        logs[n] = Log(self.fakes[n].requests)
                    return logs[n]
                return {k: one(v) for k, v in value.items()}
            if isinstance(value, list):
                return [one(v) for v in value]
            return value

        return one(record)


class Log(hub.ServedLog):
    """A served log as a judge reads it: its contents are the kernel's requests, so its
    ``repr`` is short and marked, as a judge's messages show every value
    (:func:`.boundary.shown`)."""

    def __repr__(self) -> str:
        return boundary.shown(self, ord("r"))


# -- what a served factory may be called with ------------------------------------------------


def check_call(factory: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    """Refuse (:class:`course.hub.HubError`) a call of a served factory that its signature
    does not take, whose values are not of their annotated types, whose integers are out
    of bounds, or that is too large."""
    build, _ = hub.FACTORIES[factory]
    size = len(json.dumps([args, kwargs], default=hub.encode_args))
    if size > MAX_ARG_BYTES:
        raise hub.HubError(f"{factory}: its arguments are over {MAX_ARG_BYTES:,} bytes")
    try:
        bound = inspect.signature(build).bind(*args, **kwargs)
    except TypeError as exc:
        raise hub.HubError(f"{factory}: {boundary.line(exc, 160)}") from None
    try:
        hints = typing.get_type_hints(build)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: sizes only
        hints = {}
    limits = hub.BOUNDS.get(factory, {})
    budget = [MAX_ARG_ITEMS]
    for name, value in bound.arguments.items():
        param = inspect.signature(build).parameters[name]
        hint = hints.get(name, Any)
        values = value if param.kind is inspect.Parameter.VAR_POSITIONAL else [value]
        for v in values:
            if type(v) is int:
                low, high = limits.get(name, TOP_INT_RANGE)
                if not low <= v <= high:
                    raise hub.HubError(f"{factory}: {name}={v} is outside {low}..{high}")
            _check_value(factory, name, v, hint, budget)


def _check_value(factory: str, name: str, value: Any, hint: Any, budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise hub.HubError(f"{factory}: more than {MAX_ARG_ITEMS:,} values in its arguments")
    if not _fits(value, hint):
        raise hub.HubError(f"{factory}: {name} is a {type(value).__name__}, not "
                           f"{boundary.line(getattr(hint, '__name__', hint), 80)}")
    if type(value) is int and not INT_RANGE[0] <= value <= INT_RANGE[1]:
        raise hub.HubError(f"{factory}: a value in {name} is outside {INT_RANGE[0]:,}.."
                           f"{INT_RANGE[1]:,}")
    if isinstance(value, dict):
        for v in value.values():
            _check_value(factory, name, v, Any, budget)
    elif isinstance(value, list | tuple):
        inner = typing.get_args(hint)
        item = inner[0] if len(inner) == 1 else Any
        for v in value:
            _check_value(factory, name, v, item, budget)
    elif isinstance(value, Reply):
        return


def _fits(value: Any, hint: Any) -> bool:
    """``value`` is of the annotated type, as far as JSON and a Reply can tell."""
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, h) for h in typing.get_args(hint))
    if origin is not None:
        if isinstance(origin, type) and issubclass(origin, abc.Mapping):
            return isinstance(value, dict)
        if isinstance(origin, type) and issubclass(origin, abc.Sequence):
            return isinstance(value, list | tuple)
        return True
    if hint is float:
        return type(value) in (int, float)
    if hint in (int, str, bool):
        return type(value) is hint
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _handler_for(owner: Hub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = 60  # a connection that sends nothing gives its slot back

        def address_string(self) -> str:  # a unix socket has no client address
            return "kernel"

        def _json(self, status: int, payload: Any) -> None:
            send_http(self, status, json.dumps(payload).encode(),
                      [("content-type", "application/json")])

        def _refuse(self, status: int, why: str) -> None:
            self._json(status, error_body(status, why))

        def _answer(self) -> None:
            try:
                length = int(self.headers.get("content-length") or 0)
            except ValueError:
                length = -1
            if length < 0:
                self.close_connection = True
                return self._refuse(400, "the request's content-length is not a number")
            if owner.cpu > MAX_CPU_SECONDS:
                self.close_connection = True
                return self._refuse(429, f"the fakes of this submission used their "
                                    f"{MAX_CPU_SECONDS:g} s of the grader's time")
            if length > MAX_BODY:
                self.close_connection = True
                return self._refuse(413, f"the request is over {MAX_BODY:,} bytes")
            content = self.rfile.read(length) if length else b""
            started = time.thread_time()
            try:
                self._route(content)
            finally:
                owner.spend(time.thread_time() - started)

        def _route(self, content: bytes) -> None:
            if self.path == "/fakes" and self.command == "POST":
                try:
                    spec = json.loads(content or b"{}", object_hook=hub.decode_args)
                    if not isinstance(spec, dict):
                        raise hub.HubError("the request to build a fake is not an object")
                    n = owner.create(spec.get("factory", ""), spec.get("args", []),
                                     spec.get("kwargs", {}))
                except (hub.HubError, ValueError, TypeError, AttributeError, KeyError,
                        ImportError, RecursionError) as exc:
                    return self._refuse(400, boundary.line(exc, 300))
                return self._json(200, {"id": n})
            found = _FAKE_PATH.match(self.path)
            if not found or int(found.group(1)) >= len(owner.fakes):
                return self._refuse(404, f"no such fake: {boundary.line(self.path, 100)}")
            fake, rest = owner.fakes[int(found.group(1))], found.group(2) or "/"
            if rest == "/requests" and self.command == "GET":
                return self._json(200, fake.requests)
            with owner._lock:
                if owner.held + len(content) > MAX_LOG_BYTES:
                    return self._refuse(413, f"the fakes of this submission already hold "
                                        f"{MAX_LOG_BYTES:,} bytes of requests")
                owner.held += len(content)
            answer_http(self, fake, f"{hub.HOST}{rest}", content)

        do_POST = do_GET = _answer

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    return Handler
