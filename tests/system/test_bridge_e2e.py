"""End to end, all real parts (tests/support/e2e.py): the firmware on the simulated board under MicroPython -> a pty or
its own MQTT client -> the `flickboard bridge` process -> Mosquitto -> a display that connects at the end and
reads the retained scoreboard, which must equal `flickboard replay` of the same game. A scorer enters what the
sensors cannot see through the bridge's input topic, in lock-step with the board (host/sim/driver.py)."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
from e2e import SHOT_MS, BridgeProc, Rig, bridge_args, game, proto, replay_summary, same_score

from flickboard.cli.bridge import start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.broker import Broker
from flickboard.sim.driver import Driver
from flickboard.sim.simulator import spawn_board


def check(rig: Rig, tmp_path: Path) -> dict:  # type: ignore[type-arg]
    final = rig.final()
    expected = replay_summary(rig.transcript, tmp_path)
    assert same_score(final["score"], expected), (final["score"]["totals"], expected["totals"])
    keys = rig.board_keys()
    assert len(keys) == len(set(keys)), "an event was journaled twice"
    assert keys == sorted(keys) and [s for _, s in keys] == list(range(1, len(keys) + 1)), "every event, once"
    assert not final["needs_review"] and final["waiting"] is None and final["queued"] == 0
    return final


def test_serial_board_to_mqtt_scoreboard(broker: Broker, tmp_path: Path) -> None:
    rig = Rig(broker, tmp_path, seed=7, via="serial")
    try:
        rig.play()
        final = check(rig, tmp_path)
        assert final["board_link"]["via"].startswith("serial") and final["board_link"]["online"]
        twenties = sum(final["score"]["games"][0]["twenties"])
        provisional = [m for m in rig.watcher.moments if m["type"] == "twenty" and m["provisional"]]
        assert twenties > 0 and len(provisional) == twenties, "every twenty came from the hole beam"
        assert any(m["type"] == "ditch-pass" for m in rig.watcher.moments), "the ditch beams were seen"
    finally:
        rig.close()
    assert "Traceback" not in rig.bridge.output()


def test_mqtt_board_to_mqtt_scoreboard(broker: Broker, tmp_path: Path) -> None:
    rig = Rig(broker, tmp_path, seed=11, via="mqtt")
    try:
        rig.play()
        final = check(rig, tmp_path)
        assert final["board_link"]["via"] == "mqtt" and True in rig.watcher.online_seen
        # the board's run ends after the game (a little later on a loaded machine): its own retained status says
        # so, and the scoreboard shows it
        assert rig.watcher.wait(
            lambda w: w.scoreboard is not None and w.scoreboard["board_link"]["online"] is False, timeout=60
        ), f"the scoreboard never showed the board offline\n{rig.bridge.output()[-2000:]}"
    finally:
        rig.close()
    assert "Traceback" not in rig.bridge.output()


def test_serial_unplug_and_bridge_kill9_mid_game(broker: Broker, tmp_path: Path) -> None:
    """The cable is pulled while the board sends a shot's events, and later the bridge is killed with SIGKILL and
    started again: the score is the same, and no event is counted twice."""
    rig = Rig(broker, tmp_path, seed=7, via="serial")
    assert rig.relay is not None
    relay = rig.relay

    def fault(hold: str) -> None:
        if hold == "shot-5":
            relay.unplug()  # the board's next shot goes nowhere...
            assert rig.watcher.wait(lambda w: False, timeout=0.5) is False
            relay.plug()  # ...until it is back: the bridge re-opens the port, pings, the board resends
        elif hold == "shot-12":
            rig.bridge.kill9()
            rig.bridge.start()

    try:
        rig.play(after_go=fault)
        check(rig, tmp_path)
    finally:
        rig.close()
    assert relay.dropped > 0, "the unplug really lost bytes on the wire"
    out = rig.bridge.output()
    assert "disconnected" in out and "Traceback" not in out


def test_broker_restart_and_bridge_kill9_mid_game(broker: Broker, tmp_path: Path) -> None:
    rig = Rig(broker, tmp_path, seed=11, via="mqtt")

    def fault(hold: str) -> None:
        if hold == "shot-6":
            broker.restart()  # no persistence: sessions and retained messages are gone
        elif hold == "shot-14":
            rig.bridge.kill9()
            rig.bridge.start()

    try:
        rig.play(after_go=fault)
        check(rig, tmp_path)
    finally:
        rig.close()
    assert "Traceback" not in rig.bridge.output()


def test_bad_input_is_counted_shown_and_never_scores(broker: Broker, tmp_path: Path) -> None:
    """Garbled, half, oversize, wrong-version and foreign-board lines on the serial port and on MQTT, and invalid
    manual entries: each is refused with a reason, counted in the retained health document, and the final
    score is still the replay's."""
    rig = Rig(broker, tmp_path, seed=7, via="serial")
    assert rig.relay is not None
    relay = rig.relay
    stranger = proto.Encoder("stranger", 1, 0).hello(0, "1", "pico_w", [], "power")
    good = proto.Encoder("sim1", 99, 0).event("pass", "hole", 5, {"dur_us": 900})
    answers: list[dict] = []  # type: ignore[type-arg]

    def inject(hold: str) -> None:
        if hold != "shot-3":
            return
        relay.inject(b">>> \r\n\x00\xff\xfe binary garbage\n")  # REPL and line noise
        relay.inject(b'FB1|{"v":1,"b":"sim1"\n')  # half a line
        relay.inject((good[:-3] + "abc\n").encode())  # CRC garbled
        relay.inject(b"FB2|{}|00000000\n")  # a newer protocol
        relay.inject(b"FB1|" + b"x" * 6000 + b"\n")  # oversize
        relay.inject((stranger + "\n").encode())  # a board this bridge does not follow
        pub = rig.watcher.c.publish
        pub("flickboard/sim1/raw", b"{not json", qos=1)
        pub("flickboard/sim1/raw", b'{"v":2,"b":"sim1","bt":1,"s":1,"t":0,"m":"hello"}', qos=1)
        pub("flickboard/sim1/raw", b"{" + b" " * 5000 + b"}", qos=1)
        ghost = proto.Encoder("ghost", 1, 0)
        ghost.hello(0, "1", "pico_w", [], "power")
        pub("flickboard/ghost/raw", ghost.last_json.encode(), qos=1)  # not followed: not even subscribed
        pub("flickboard/ghost/status", b"online", qos=1, retain=True)  # ... but flagged by its presence
        answers.append(rig.watcher.send({"line": "x" * 300}))
        answers.append(rig.watcher.send({"lines": "hit"}))
        answers.append(rig.watcher.send({"line": "forfeit Ana tired"}))  # not a forfeit reason: refused

    try:
        rig.play(after_go=inject)
        check(rig, tmp_path)
        assert rig.watcher.wait(lambda w: w.health is not None and w.health["inputs"]["refused"] >= 1)
        health = rig.watcher.health
        assert health is not None
    finally:
        rig.close()
    errors = health["protocol"]["counters"]["errors"]
    assert errors.get("crc", 0) >= 1 and errors.get("frame", 0) + errors.get("json", 0) >= 2
    assert errors.get("version", 0) >= 2 and errors.get("board", 0) >= 1
    serial = next(v for k, v in health["links"].items() if k.startswith("serial") and "noise" in v)
    assert serial["noise"] >= 2 and serial["oversize"] >= 1
    mqtt_link = next(v for k, v in health["links"].items() if k.startswith("mqtt"))
    assert mqtt_link["refused_oversized"] >= 1  # the 5,000-byte payload: refused by the link before decoding
    assert health["inputs"]["invalid"] >= 2 and health["inputs"]["refused"] >= 1
    assert [a["ok"] for a in answers] == [False, False, False]
    reasons = " | ".join(e["reason"] for e in health["recent_errors"])
    assert "CRC mismatch" in reasons and "not in this bridge's list" in reasons and "version 2" in reasons
    assert "board 'ghost' is online on the broker but not in this bridge's list" in reasons
    assert list(health["unlisted_boards"]) == ["ghost"] and not (rig.journals / "ghost").exists()
    out = rig.bridge.output()
    assert "refused (crc)" in out and "Traceback" not in out


def test_one_bridge_follows_boards_it_discovers(broker: Broker, tmp_path: Path) -> None:
    """No board list: the bridge follows every board that shows up on flickboard/+/..., each with its own game,
    journal and scoreboard, played at the same time."""
    rigs = [Rig(broker, tmp_path, seed=s, via="mqtt", board=b, bridge=False) for s, b in ((11, "t-1"), (13, "t-2"))]
    bridge = BridgeProc(["--mqtt", f"mqtt://127.0.0.1:{broker.port}", *bridge_args(tmp_path / "journals")], tmp_path)
    errors: list[BaseException] = []

    def play(rig: Rig) -> None:
        try:
            rig.play()
        except BaseException as e:  # reported below, in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=play, args=(r,)) for r in rigs]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        for rig in rigs:
            check(rig, tmp_path)
    finally:
        for rig in rigs:
            rig.close()
        bridge.stop()
    assert sorted(p.name for p in (tmp_path / "journals").iterdir()) == ["t-1", "t-2"]
    assert "Traceback" not in bridge.output()


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6, 8, 9])
def test_many_games_through_the_sensors_score_as_their_replay(broker: Broker, tmp_path: Path, seed: int) -> None:
    """The same proof over many random games (in-process bridge, board over MQTT): whatever the game holds — free
    shots, called twenties, baseline outs, opponent choices, shoot-outs — the sensors plus the scorer's entries
    give exactly the replay's score."""
    transcript = game(seed)
    scenario = from_transcript(parse_transcript(transcript), board_id="g1", holds=True, shot_ms=SHOT_MS)
    scenario["control"] = str(tmp_path)
    scenario["mqtt"] = {"host": "127.0.0.1", "port": broker.port}
    cfg = BridgeConfig(
        mqtt=parse_mqtt_url(f"mqtt://127.0.0.1:{broker.port}"),
        boards=("g1",),
        journals=str(tmp_path / "j"),
        players=("Ana", "Ben"),
        match="games:1",
        client_id=f"many-{seed}",
    )
    running = start_bridge(cfg)
    board = spawn_board(scenario, realtime=False, pty=False, stdout=subprocess.DEVNULL)
    bridge = running.bridge
    try:

        def enter(line: str) -> dict:  # type: ignore[type-arg]
            return bridge.mqtt_input("g1", json.dumps({"line": line}).encode())

        Driver(transcript, tmp_path, enter, lambda: int(bridge.link_view("g1").get("processed") or 0)).run()
        doc = bridge.scoreboard("g1")
    finally:
        running.stop()
        board.stop()
    assert same_score(doc["score"], replay_summary(transcript, tmp_path)), transcript
    assert not doc["needs_review"] and doc["queued"] == 0
