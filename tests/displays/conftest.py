"""The board pages' shared fixtures: one game on one board with its bridge and web server (`rig`), and Chromium
for the module's pages (`browser`). A module with a browser of its own (Playwright's, for the tournament pages)
defines `browser` itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from web_rig import Chromium, Rig

from flickboard.sim.broker import Broker


@pytest.fixture
def rig(broker: Broker, tmp_path: Path) -> Iterator[Rig]:
    r = Rig(broker, tmp_path)
    try:
        yield r
    finally:
        r.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium() as b:
        yield b
