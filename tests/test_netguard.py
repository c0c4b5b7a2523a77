"""The network guard: nothing leaves the machine while testing or grading."""

from __future__ import annotations

import socket

import anthropic
import httpx2
import pytest

from course import netguard


def test_guard_is_on_for_the_test_session():
    assert netguard.installed()


def test_public_address_is_refused_with_a_clear_message():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with pytest.raises(netguard.NetworkBlocked, match="blocked: this course grades and tests "
                                                        "offline"):
        s.connect(("93.184.216.34", 443))
    s.close()


@pytest.mark.parametrize("host", ["10.0.0.1", "192.168.1.1", "8.8.8.8", "api.anthropic.com"])
def test_every_non_loopback_target_is_refused(host):
    with pytest.raises(netguard.NetworkBlocked):
        socket.create_connection((host, 443), timeout=1)


def test_loopback_still_works():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname(), timeout=2)
    conn, _ = server.accept()
    client.sendall(b"ok")
    assert conn.recv(2) == b"ok"
    for s in (client, conn, server):
        s.close()


def test_a_live_sdk_client_cannot_reach_the_api():
    client = anthropic.Anthropic(api_key="sk-live", base_url="https://api.anthropic.com",
                                 max_retries=0, http_client=httpx2.Client(timeout=2))
    with pytest.raises(anthropic.APIConnectionError) as info:
        client.messages.create(model="claude-opus-5", max_tokens=5,
                               messages=[{"role": "user", "content": "hi"}])
    chain, err = [], info.value
    while err is not None:
        chain.append(err)
        err = err.__cause__ or err.__context__
    assert any(isinstance(e, netguard.NetworkBlocked) for e in chain), chain
