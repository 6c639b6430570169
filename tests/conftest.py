"""Fixtures every part of the tests shares. The helpers in tests/support/ are importable by name (`from e2e import
...`): pytest puts tests/support on the path (pyproject.toml, `pythonpath`), with the repository root and
firmware/ (the firmware's own encoder, `fb.proto`, writes board lines in the host's tests)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from host.sim.broker import Broker, mosquitto


@pytest.fixture
def broker() -> Iterator[Broker]:
    """A private Mosquitto on a free loopback port, for one test."""
    with mosquitto() as b:
        yield b
