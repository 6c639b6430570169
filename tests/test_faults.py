"""Faults injected into a game played end to end with real parts (tests/faults.py): each test plays a short
scripted game, injects one fault while the board's events are happening, and checks the outcome against the
board's own record of what it sent and against a fault-free replay: no event lost, none counted twice, the same
score. (The bridge SIGKILLed, the serial cable pulled and a broker restart without persistence are in
tests/test_bridge_e2e.py; `make soak` runs all seven faults on many games and writes docs/reliability.md.)"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from broker import Broker, mosquitto, start_mosquitto
from faults import (
    BURST,
    Outcome,
    broker_restart,
    duplicates,
    network_drop,
    outbox_overflow,
    reordered,
)

LINES = 8  # the first entries of a random legal game: a handful of sensor shots


@pytest.fixture
def broker() -> Iterator[Broker]:
    with mosquitto() as b:
        yield b


def clean(out: Outcome) -> None:
    """Every event the board sent is in the journal exactly once, in the board's order, and the score is the
    fault-free replay's."""
    assert out.events > 3, out
    assert out.lost == 0 and out.duplicated == 0 and out.declared_lost == 0, out
    assert out.journaled == out.events, out
    assert out.score_ok is True, out
    assert not out.needs_review, out


def test_broker_restarted_mid_game_with_persistence(tmp_path: Path) -> None:
    """1. Mosquitto configured as docs/security.md says (persistence on) is restarted while the board plays."""
    store = tempfile.mkdtemp(dir=tmp_path, prefix="mosquitto-db-")
    conf = f"persistence true\npersistence_location {store}/\nautosave_interval 1\n"
    out = broker_restart(lambda: start_mosquitto(conf), tmp_path, seed=11, lines=LINES)
    clean(out)
    assert not [n for n in out.notes if "order" in n], out.notes


def test_board_network_down_10s_then_restored(broker: Broker, tmp_path: Path) -> None:
    """4. The firmware's own MQTT client, under MicroPython, loses its connection for 10 s of its clock while a
    shot's events happen: they wait in its outbox and arrive in order after the reconnect."""
    out = network_drop(broker, tmp_path, seed=11, lines=LINES)
    clean(out)
    problems = [n for n in out.notes if not n.startswith(("resent after", "sent while down"))]
    assert problems == [], out.notes
    assert "sent while down: []" not in out.notes and "resent after reconnect: []" not in out.notes, out.notes


def test_duplicate_delivery_over_both_links(broker: Broker, tmp_path: Path) -> None:
    """5. The board sends every event over USB serial and MQTT at once, and earlier lines come again on both."""
    out = duplicates(broker, tmp_path, seed=7, lines=LINES)
    clean(out)
    dropped = int(next(n for n in out.notes if n.startswith("duplicates dropped")).rsplit(": ", 1)[1])
    assert dropped >= out.events, out.notes


def test_reordered_delivery(broker: Broker, tmp_path: Path) -> None:
    """6. The board's lines reach the bridge shuffled: the journal still has them in the board's order."""
    out = reordered(broker, tmp_path, seed=7, lines=LINES)
    clean(out)
    assert "nothing was reordered" not in out.notes and "journal not in the board's order" not in out.notes, out


def test_outbox_overflow_is_a_gap_and_a_review(broker: Broker, tmp_path: Path) -> None:
    """7. The outbox (4 lines) overflows during a burst while the cable is out: the board's `gap` reaches the
    bridge, exactly the dropped events are declared lost, the game waits for review, the score does not move."""
    out = outbox_overflow(broker, tmp_path, seed=3, lines=None)
    assert out.notes == [], out.notes
    assert out.events == 1 + BURST, out
    assert out.declared_lost == BURST - 4 and out.lost == 0 and out.duplicated == 0, out
    assert out.journaled == out.events - out.declared_lost, out
    assert out.needs_review and out.score_ok, out
