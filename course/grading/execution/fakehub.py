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
cell being judged may be named. Caps: :data:`MAX_FAKES` fakes per submission, a request body
of at most 32 MB (the Messages API's own limit: docs api/errors, ``request_too_large``), and
:data:`MAX_LOG_BYTES` of request bodies held in all; past a cap the hub answers 413 and
keeps nothing more.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import socketserver
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from course import hub
from course.fakes import FakeAPI, answer_http, send_http
from course.wire import error_body

SOCKET_NAME = "fake-hub.sock"
MAX_FAKES = 400
MAX_BODY = 32_000_000
MAX_LOG_BYTES = 128_000_000
MAX_CONNECTIONS = 32
_FAKE_PATH = re.compile(r"^/fakes/(\d+)(/.*)?$")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """At most :data:`MAX_CONNECTIONS` open at once: one more is closed unanswered, so a
    kernel cannot make the grader's worker start threads without end."""

    daemon_threads = True

    def __init__(self, path: str, handler: type[BaseHTTPRequestHandler]) -> None:
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
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
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class Hub:
    """The fakes of one submission's kernel. Use as a context manager around the kernel's
    life; :attr:`socket` is the path the grader gives the kernel (:func:`course.hub.activate`)."""

    def __init__(self, folder: Path) -> None:
        self.socket = str(folder / SOCKET_NAME)
        self.fakes: list[FakeAPI] = []
        self.held = 0
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Hub:
        self._server = _Server(self.socket, _handler_for(self))
        os.chmod(self.socket, 0o666)  # the sandboxed kernel runs as another user
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.05}, name="fake hub")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        try:
            os.unlink(self.socket)
        except OSError:
            pass

    def mark(self) -> int:
        """How many fakes exist now: a cell's record may name only fakes built after it."""
        return len(self.fakes)

    def create(self, factory: str, args: Any, kwargs: Any) -> int:
        module = factory.partition(":")[0]
        if not module.startswith("course.worlds.") or not isinstance(args, list) or (
                not isinstance(kwargs, dict)):
            raise hub.HubError(f"not a world factory the grader serves: {factory!r}")
        importlib.import_module(module)
        if factory not in hub.FACTORIES:
            raise hub.HubError(f"not a world factory the grader serves: {factory!r}")
        build, part = hub.FACTORIES[factory]
        with self._lock:
            if len(self.fakes) >= MAX_FAKES:
                raise hub.HubError(f"more than {MAX_FAKES} fakes in one submission")
        fake = build(*args, **kwargs)
        if part is not None and isinstance(fake, tuple) and len(fake) > part:
            fake = fake[part]
        if not isinstance(fake, FakeAPI):
            raise hub.HubError(f"{factory} did not build a FakeAPI")
        with self._lock:
            self.fakes.append(fake)
            return len(self.fakes) - 1

    def resolve(self, record: Any, since: int = 0) -> Any:
        """``record`` with every log reference replaced by the hub's own log. Raises
        :class:`course.hub.HubError` for a reference to no fake of this cell."""
        if isinstance(record, dict):
            if set(record) == {hub.REF, "field"}:
                n, field = record[hub.REF], record["field"]
                if field != "requests" or not isinstance(n, int) or not (
                        since <= n < len(self.fakes)):
                    raise hub.HubError(f"the record names fake {n!r}, which this cell did "
                                       "not build through the grader")
                return hub.ServedLog(json.loads(json.dumps(self.fakes[n].requests)))
            return {k: self.resolve(v, since) for k, v in record.items()}
        if isinstance(record, list):
            return [self.resolve(v, since) for v in record]
        return record


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
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                self.close_connection = True
                return self._refuse(413, f"the request is over {MAX_BODY:,} bytes")
            content = self.rfile.read(length) if length else b""
            if self.path == "/fakes" and self.command == "POST":
                try:
                    spec = json.loads(content or b"{}", object_hook=hub.decode_args)
                    n = owner.create(spec.get("factory", ""), spec.get("args", []),
                                     spec.get("kwargs", {}))
                except (hub.HubError, ValueError, TypeError, AttributeError,
                        ImportError) as exc:
                    return self._refuse(400, str(exc)[:300])
                return self._json(200, {"id": n})
            found = _FAKE_PATH.match(self.path)
            if not found or int(found.group(1)) >= len(owner.fakes):
                return self._refuse(404, f"no such fake: {self.path[:100]}")
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
