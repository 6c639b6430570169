"""Fixtures every part of the tests shares. The helpers in tests/support/ are importable by name (`from e2e import
...`): pytest puts tests/support on the path (pyproject.toml, `pythonpath`), with the repository root and
firmware/ (the firmware's own encoder, `fb.proto`, writes board lines in the host's tests)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flickboard.sim.broker import Broker, mosquitto


@pytest.fixture(scope="session", autouse=True)
def private_state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What the commands keep between runs (the simulated boards' boot counters) goes to a folder of this test run,
    for every command the tests start too: not the user's own ~/.local/state/flickboard."""
    import os

    old = os.environ.get("FLICKBOARD_STATE")
    os.environ["FLICKBOARD_STATE"] = str(tmp_path_factory.mktemp("state"))
    yield
    if old is None:
        del os.environ["FLICKBOARD_STATE"]
    else:
        os.environ["FLICKBOARD_STATE"] = old


@pytest.fixture
def broker() -> Iterator[Broker]:
    """A private Mosquitto on a free loopback port, for one test."""
    with mosquitto() as b:
        yield b


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With the tests spread over workers (pytest-xdist, `make unit`), every test that runs the emulated Pico goes to
    one worker, one after another: they share the checkout's `make flash` output (build/firmware/, rebuilt by each
    flash) and each emulator wants a core of its own to keep real time. A module whose emulated Pico is its own (an
    installed flickboard's, in a cache of the test's) names a group of its own with `pytestmark`."""
    sources: dict[str, bool] = {}
    for item in items:
        path = str(item.path)
        if path not in sources:
            try:
                text = item.path.read_text(encoding="utf-8")
            except OSError:
                text = ""
            sources[path] = any(word in text for word in ("rp2_board", "sim.rp2", "sim import rp2"))
        if sources[path] and item.get_closest_marker("xdist_group") is None:  # a module may name a group of its own
            item.add_marker(pytest.mark.xdist_group("emulated-pico"))
