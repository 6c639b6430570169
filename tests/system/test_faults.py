"""Faults injected into a game played end to end with real parts (tests/support/faults.py): each test plays a short
scripted game, injects one fault while the board's events are happening, and checks the outcome against the
board's own record of what it sent and against a fault-free replay: no event lost, none counted twice, the same
score. (The bridge SIGKILLed, the serial cable pulled and a broker restart without persistence are in
tests/system/test_bridge_e2e.py; `make soak` runs all seven faults on many games and writes docs/reliability.md.)"""

from __future__ import annotations

import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from e2e import BridgeProc, Watcher, bridge_args, game, proto
from faults import (
    BURST,
    FaultRig,
    Outcome,
    PtyBoard,
    broker_restart,
    duplicates,
    network_drop,
    outbox_overflow,
    prefix,
    reordered,
    rss_kib,
)

from flickboard.core import journal
from flickboard.sim.broker import Broker, start_mosquitto

LINES = 8  # the first entries of a random legal game: a handful of sensor shots


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
    assert out.notes == [], out.notes  # the bridge's persistent session survived, the journal is in order


def test_board_network_down_10s_then_restored(broker: Broker, tmp_path: Path) -> None:
    """4. The firmware's own MQTT client, under MicroPython, loses its connection for 10 s of its clock while a
    shot's events happen: they wait in its outbox and arrive in order after the reconnect."""
    out = network_drop(broker, tmp_path, seed=11, lines=LINES)
    clean(out)
    problems = [n for n in out.notes if not n.startswith(("resent after", "sent while down", "down for"))]
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


FLOOD = 10_000


def test_floods_garbage_oversize_and_slow_drip_keep_memory_bounded_and_the_bridge_serving(
    broker: Broker, tmp_path: Path
) -> None:
    """On the serial port of a real bridge process: a line dripped one byte every 5 ms, a megabyte of binary
    garbage, a 2 MB line with no end, then 10,000 events sent within about a second. Every event is journaled once
    and acked, the garbage is counted and dropped, memory stays bounded, and the bridge still answers an entry."""
    port = PtyBoard(tmp_path / "usb-flood")
    args = ["--serial", str(port.link), "--mqtt", broker.url, "--boards", "sim1", *bridge_args(tmp_path / "j")]
    bridge = BridgeProc(args, tmp_path)
    watcher = Watcher(broker.port, "sim1")
    enc = proto.Encoder("sim1", 5, 0)
    try:
        assert port.opened(), bridge.output()
        port.write((enc.hello(0, "1.0", "pico_w", [], "power") + "\n").encode())
        assert watcher.wait(lambda w: w.processed() >= 1), bridge.output()
        assert bridge.proc is not None
        before = rss_kib(bridge.proc.pid)
        for b in (enc.event("pass", "ditch1", 1000, {"dur_us": 4000}) + "\n").encode():
            port.write(bytes([b]))  # a slow drip: one byte at a time
            time.sleep(0.005)
        rnd = random.Random(1)
        port.write(bytes(rnd.getrandbits(8) for _ in range(1 << 20)) + b"\n")  # binary garbage
        port.write(b"FB1|" + b"x" * (2 << 20) + b"\n")  # a line that never ends (2 MB)
        t0 = time.monotonic()
        lines = [enc.event("pass", f"ditch{1 + i % 4}", 2000 + i, {"dur_us": 3000}) for i in range(FLOOD)]
        for i in range(0, FLOOD, 100):  # 100 lines every 10 ms: 10,000 in about a second
            port.write(("\n".join(lines[i : i + 100]) + "\n").encode())
            if i == FLOOD // 2:  # a scorer's entry in the middle of the flood is answered
                watcher.c.publish("flickboard/sim1/input", json.dumps({"line": "declare", "id": "mid-flood"}), qos=1)
            time.sleep(max(0.0, t0 + (i + 100) / FLOOD - time.monotonic()))
        sent_in = time.monotonic() - t0
        deadline = time.monotonic() + 180
        while port.acked() < FLOOD + 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert port.acked() == FLOOD + 2, f"acked {port.acked()} of {FLOOD + 2}\n{bridge.output()[-2000:]}"
        grown = rss_kib(bridge.proc.pid) - before
        assert watcher.wait(lambda w: any(r.get("id") == "mid-flood" for r in w.results), 120), "no answer mid-flood"
        answer = watcher.enter("reviewed after the flood")
        assert answer["ok"], answer
        assert watcher.wait(lambda w: w.health is not None and w.health["protocol"]["counters"]["new"] >= FLOOD + 2)
        health = watcher.health
        assert health is not None
    finally:
        watcher.close()
        bridge.stop()
        port.close()
    recs = [
        r for r in journal.read(str(next((tmp_path / "j" / "sim1").glob("*.jsonl")))).records if r["src"] == "board"
    ]
    assert [r["s"] for r in recs] == list(range(1, FLOOD + 3)), "every event once, in order"
    serial = next(v for k, v in health["links"].items() if k.startswith("serial") and "oversize" in v)
    assert serial["oversize"] >= 1 and serial["noise"] >= 1, serial
    assert grown < 150_000, f"the bridge grew by {grown} KiB for {FLOOD} events"
    out = bridge.output()
    assert "Traceback" not in out
    print(f"flood: {FLOOD} events written in {sent_in:.2f} s; bridge memory +{grown / 1024:.1f} MiB")


def test_a_board_held_while_its_network_is_down_reconnects_before_it_goes_on(broker: Broker, tmp_path: Path) -> None:
    """The simulated board's clock stops at a hold, but its network link keeps the wall clock's pace: cut while the
    board stands at a hold a moment before its next sensor event, it reconnects once the path is back, still held,
    and the game then goes on clean. (Its reconnect backoff once waited on a clock stopped a microsecond before that
    event, for ever: a broker restarted under load left a board offline at a hold.)"""
    rig = FaultRig(broker, tmp_path, prefix(game(11), LINES), via="mqtt")
    assert rig.proxy is not None
    try:
        first = rig.scenario["holds"][0]["name"]
        nxt = min(e["at_ms"] for e in rig.scenario["events"] if e["at_ms"] >= rig.scenario["holds"][0]["at_ms"])
        assert nxt - rig.scenario["holds"][0]["at_ms"] < 1000, "the hold stands less than a backoff before its shot"
        rig.wait_processed(rig.hold(first))

        def online() -> object:
            return ((rig.watcher.scoreboard or {}).get("board_link") or {}).get("online")

        rig.proxy.cut()
        _until(lambda: online() is False, "the bridge to see the board offline")
        time.sleep(3)  # its reconnects are refused meanwhile: it backs off, held
        rig.proxy.restore()
        _until(lambda: online() is True, "the held board to reconnect", timeout=30)
        assert not (rig.control / f"{first}.go").exists(), "still held"
        rig.play()
        clean(rig.outcome("held while the network was down"))
    finally:
        rig.close()


def _until(pred: Callable[[], object], what: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"waited {timeout:g} s for {what}"
        time.sleep(0.02)
