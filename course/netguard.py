"""Refuse every network connection that leaves this machine.

Grading and testing must never reach the network: a student's stray live call
would be slow, flaky, and could spend someone's money. :func:`install` patches
``socket.socket.connect`` (and ``connect_ex``, and ``socket.getaddrinfo`` so no DNS
query goes out either) so that any address outside the
loopback range raises :class:`NetworkBlocked` with a message saying why.
Loopback stays open because Jupyter kernels talk to their clients over it.

The grader installs it in every kernel it starts (see ``nbgrader_config.py``);
the test suite installs it for the whole session (``tests/conftest.py``).
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

_original: dict[str, Any] = {}


class NetworkBlocked(ConnectionRefusedError):
    """A connection to a non-loopback address while the network guard is on."""


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded(name: str):
    original = _original[name]

    def connect(self: socket.socket, address: Any) -> Any:
        if not _is_local(address):
            raise _blocked(address)
        return original(self, address)

    connect.__name__ = name
    return connect


def _blocked(address: Any) -> NetworkBlocked:
    return NetworkBlocked(
        f"network access to {address!r} is blocked: this course grades and tests "
        "offline. Use the fake client the notebook gives you "
        "(course.fakes.FakeAPI(...).client()) instead of a live one."
    )


def _guarded_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
    # Refuse before the DNS query, so not even a lookup leaves the machine.
    if host is not None and not _is_local((host.decode() if isinstance(host, bytes) else host,)):
        raise _blocked(host)
    return _original["getaddrinfo"](host, *args, **kwargs)


def install() -> None:
    """Turn the guard on (idempotent)."""
    if _original:
        return
    for name in ("connect", "connect_ex"):
        _original[name] = getattr(socket.socket, name)
        setattr(socket.socket, name, _guarded(name))
    _original["getaddrinfo"] = socket.getaddrinfo
    socket.getaddrinfo = _guarded_lookup


def uninstall() -> None:
    """Turn the guard off again."""
    for name, fn in _original.items():
        if name == "getaddrinfo":
            socket.getaddrinfo = fn
        else:
            setattr(socket.socket, name, fn)
    _original.clear()


def installed() -> bool:
    return bool(_original)
