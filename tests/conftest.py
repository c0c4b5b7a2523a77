"""Shared test setup: the network guard is on for the whole session."""

from __future__ import annotations

from pathlib import Path

import pytest

from course import netguard

from . import ROOT


@pytest.fixture(autouse=True, scope="session")
def offline():
    """No test reaches the network: any non-loopback connection raises NetworkBlocked."""
    netguard.install()
    yield
    netguard.uninstall()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
