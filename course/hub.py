"""Fakes served from the grader's side: what the fake API received is the grader's record.

A world factory marked :func:`served` (``weather.two_step`` and the like) builds its
:class:`~course.fakes.FakeAPI` in the process that calls it, as it always has: in a
student's JupyterLab, in Validate, in the course's own tests, and in the notebook's own
demonstration cells under the grader. While the grader runs a graded test cell, it has
called :func:`activate` with a unix socket in the kernel's scratch folder, where its worker
process serves a hub of fakes (``course/grading/execution/fakehub.py``). The same factory
call then asks the hub to build the fake, by the factory's name and JSON arguments, and
returns a :class:`RemoteFake`: its ``client()`` is a real SDK client whose requests go over
that socket to the grader's fake, its ``serve()`` a loopback URL for a client the kernel
does not build (LangGraph's ``ChatAnthropic``) whose bytes a relay passes to the same
socket unchanged, and its ``requests`` reads the grader's log. A replay miss in the
grader's fake is raised in the kernel as the same :class:`ReplayMiss` (and so is each
exception :data:`RAISABLE` names). A factory's arguments travel as JSON, with a
:class:`~course.wire.Reply` in its cassette form.

A record that keeps ``api.requests`` keeps a *reference* to that log (:data:`REF`), never
a copy: the grader puts the log it holds in its place before the judge runs, so a kernel
that rewrites what it recorded changes nothing. A judge reads a log through :func:`log_of`,
which refuses one that did not come from the grader (a plain list, from a fake built in the
kernel because the hub was switched off). The course's own quick runs, which run trusted
notebooks in one process, set :data:`TRUST_LOCAL`.

Nothing here knows what a right request is.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import socket as sockets
import socketserver
import threading
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import httpx2

from .fakes import serving
from .wire import Reply

#: The hub's socket while the grader runs a graded test cell (see :func:`activate`).
_socket: str | None = None
#: The response header a hub sets when its fake raised instead of answering.
RAISED_HEADER = "x-course-fake-raised"
#: The key of a reference to a served log in a record: ``{REF: fake_id, "field": name}``.
REF = "$served"
#: Host part of the URLs sent over the socket (the socket, not the name, is the address).
HOST = "http://fake-hub"
#: Exceptions a fake raises instead of answering that the kernel raises again, as the same
#: class, when the fake is the grader's: name -> "module:qualname" (imported on first use).
RAISABLE = {"ReplayMiss": "course.cassette:ReplayMiss",
            "ScriptExhausted": "course.worlds.capstone.doubles:ScriptExhausted"}
#: The key of a :class:`Reply` among a served factory's JSON arguments (its cassette form).
REPLY = "$reply"
#: Quick runs of the course's own notebooks set this: plain logs are then trusted.
TRUST_LOCAL = False

#: ``"module:qualname"`` -> the undecorated factory and where the fake is in what it
#: returns (None: it is all), for every :func:`served` factory.
FACTORIES: dict[str, tuple[Callable[..., Any], int | None]] = {}
#: ``"module:qualname"`` -> ``{parameter: (lowest, highest)}``: the bounds a served
#: factory declares for its integer parameters (the grader refuses a call outside them).
BOUNDS: dict[str, dict[str, tuple[int, int]]] = {}


class HubError(RuntimeError):
    """The hub refused or could not answer; the message says why."""


class ServedLog(list):
    """A fake's request log as the grader holds it. Only the grader makes these (after a
    record is read); a judge's :func:`log_of` accepts nothing else."""


class Requests(list):
    """What ``RemoteFake.requests`` returns in the kernel: the log as the hub sent it, which
    a record keeps as a reference to the grader's copy, not as its contents."""

    def __init__(self, items: list[Any], fake_id: int) -> None:
        super().__init__(items)
        self.fake_id = fake_id

    def served_ref(self) -> dict[str, Any]:
        return {REF: self.fake_id, "field": "requests"}


def log_of(value: Any) -> list[Any]:
    """The request log a judge may read: one the grader put in the record. Raises
    ``AssertionError`` (the cell scores 0) for anything else."""
    if isinstance(value, ServedLog) or (TRUST_LOCAL and isinstance(value, list)):
        return value
    raise AssertionError("the fake API's request log did not come from the grader's fake "
                         "(was the fake built in the kernel, or the record rewritten?)")


def encode_args(value: Any) -> Any:
    """``json.dumps`` default for a served factory's arguments: a Reply in cassette form."""
    if isinstance(value, Reply):
        return {REPLY: value.to_json()}
    raise TypeError(f"{type(value).__name__} is not JSON")


def decode_args(obj: dict[str, Any]) -> Any:
    """``json.loads`` object hook, the inverse of :func:`encode_args` (the grader's side)."""
    if set(obj) == {REPLY} and isinstance(obj[REPLY], dict):
        return Reply.from_json(obj[REPLY])
    return obj


def activate(socket: str | None) -> None:
    """Build served fakes through the hub at ``socket`` from now on (``None``: locally).
    The grader calls it around graded test cells; a kernel that calls it itself only
    changes where its own fakes live, and a judge accepts only the grader's logs."""
    global _socket
    _socket = socket


def served(factory: Callable[..., Any] | None = None, *, part: int | None = None,
           bounds: dict[str, tuple[int, int]] | None = None) -> Any:
    """Mark a world factory whose fake the grader may serve: one that returns a ``FakeAPI``
    (``@served``), or a tuple holding one at index ``part`` (``@served(part=0)``). For a
    tuple, the kernel keeps its own copies of the other parts, which are not connected to
    the served fake: serve such a factory only where graded cells leave them alone.

    The grader checks a call's arguments against the factory's annotations before it
    builds anything; ``bounds`` gives the range of an integer parameter (the grader's
    default range is small, see ``course/grading/execution/fakehub.py``)."""
    if factory is None:
        return functools.partial(served, part=part, bounds=bounds)
    key = f"{factory.__module__}:{factory.__qualname__}"
    FACTORIES[key] = (factory, part)
    BOUNDS[key] = dict(bounds or {})

    @functools.wraps(factory)
    def build(*args: Any, **kwargs: Any) -> Any:
        if not _socket:
            return factory(*args, **kwargs)
        remote = RemoteFake.create(_socket, key, list(args), kwargs)
        if part is None:
            return remote
        parts = list(factory(*args, **kwargs))
        parts[part] = remote
        return tuple(parts)

    build.local = factory  # type: ignore[attr-defined]
    return build


class RemoteFake:
    """A fake that lives in the grader's process, as the kernel sees it."""

    def __init__(self, socket: str, fake_id: int) -> None:
        self.socket, self.fake_id = socket, fake_id
        self.base_url = f"{HOST}/fakes/{fake_id}"

    @classmethod
    def create(cls, socket: str, factory: str, args: list[Any], kwargs: dict[str, Any]
               ) -> RemoteFake:
        try:
            body = json.dumps({"factory": factory, "args": args, "kwargs": kwargs},
                              default=encode_args)
        except TypeError as exc:
            raise HubError(f"{factory}: the arguments of a served fake must be JSON "
                           f"({exc})") from None
        with cls._http(socket) as http:
            got = http.post(f"{HOST}/fakes", content=body)
        if got.status_code != 200:
            raise HubError(f"the grader's fake hub refused {factory}: {got.text[:300]}")
        return cls(socket, int(got.json()["id"]))

    @staticmethod
    def _http(socket: str) -> httpx2.Client:
        # Plain HTTP over a local socket: no TLS context to build (about 20 ms each).
        return httpx2.Client(transport=_Transport(uds=socket, verify=False), timeout=60)

    def client(self, *, on_send: Callable[[], None] | None = None,
               **kwargs: Any) -> anthropic.Anthropic:
        """A real SDK client wired to this fake (as ``FakeAPI.client``; ``on_send`` is called
        in this process as each request leaves)."""
        http = self._http(self.socket)
        if on_send is not None:
            http.event_hooks["request"].append(lambda request: on_send())
        return anthropic.Anthropic(
            api_key="test-key", base_url=self.base_url,
            max_retries=kwargs.pop("max_retries", 0), http_client=http, **kwargs)

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        """As ``FakeAPI.serve``: a base URL on 127.0.0.1 to give any client while the block
        runs. A relay in this process passes each connection's bytes to the grader's fake
        unchanged (a dropped connection stays dropped), so the log is what the client sent."""
        with serving(_Relay(self.socket), "RemoteFake.serve", f"/fakes/{self.fake_id}") as url:
            yield url

    @property
    def requests(self) -> Requests:
        """Every request body the grader's fake has received, oldest first."""
        with self._http(self.socket) as http:
            got = http.get(f"{self.base_url}/requests")
        if got.status_code != 200:
            raise HubError(f"the grader's fake hub did not send its log: {got.text[:300]}")
        return Requests(got.json(), self.fake_id)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"a fake served by the grader offers client() and requests, "
                             f"not {name!r}")


class _Transport(httpx2.HTTPTransport):
    """Over the hub's socket; a replay miss in the grader's fake is raised here as one."""

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle_request(request)
        name = response.headers.get(RAISED_HEADER, "")
        if name in RAISABLE:
            module, _, qualname = RAISABLE[name].partition(":")
            raised = getattr(importlib.import_module(module), qualname)
            response.read()
            message = response.json().get("error", {}).get("message", "")
            raise raised(message.removeprefix(f"the fake could not answer: {name}: "))
        return response


def _pump(source: sockets.socket, target: sockets.socket) -> None:
    """Copy bytes until ``source`` ends, then end both directions of ``target``."""
    try:
        while chunk := source.recv(65536):
            target.sendall(chunk)
    except OSError:
        pass
    finally:
        for end in (target, source):
            try:
                end.shutdown(sockets.SHUT_RDWR)
            except OSError:
                pass


class _Relay(socketserver.ThreadingTCPServer):
    """Loopback TCP in, the hub's unix socket out: one upstream connection per client.
    Closing it ends every connection it carries, so a client that keeps its connections
    alive (an SDK's pool) holds none of the hub's after the ``serve()`` block."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.carried: set[sockets.socket] = set()
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _RelayHandler)

    def server_close(self) -> None:
        super().server_close()
        with self.lock:
            for conn in self.carried:
                try:
                    conn.shutdown(sockets.SHUT_RDWR)
                except OSError:
                    pass


class _RelayHandler(socketserver.BaseRequestHandler):
    server: _Relay

    def handle(self) -> None:
        up = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        try:
            up.connect(self.server.upstream)
        except OSError:
            up.close()
            return  # the client sees the connection closed, as with a dropped reply
        with self.server.lock:
            self.server.carried.update((up, self.request))
        try:
            back = threading.Thread(target=_pump, args=(up, self.request), daemon=True)
            back.start()
            _pump(self.request, up)
            back.join(timeout=60)
        finally:
            with self.server.lock:
                self.server.carried.difference_update((up, self.request))
            up.close()
