"""Issue 34, in-process: an entry or a board event is applied once per board, across matches, boots and bridge
restarts, against the real bridge (host/board/bridge/) writing real journal files; board lines come from the
firmware's own encoder. Each test failed on the code before the fix: there a request id was checked against the
current match only (a copy after a `new` was entered in the new match), a copy of an earlier boot's event put the
game on a "two boots alive" hold, a hole was declared lost while the broker link was down, and after a reviewed
forged `hello` the scoreboard kept the forger's boot and the real board's missing events were never asked for."""

from __future__ import annotations

import contextlib
import json
import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from fb import proto  # the firmware's encoder
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.board.bridge.messages import EARLY_WAIT
from flickboard.board.links import MqttLink
from flickboard.core import journal
from flickboard.sim.broker import Broker

SENSORS = [{"name": "hole", "kind": "beam"}]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Board:
    """A board on MQTT: the payloads it sent (to send again, as a broker restarted from its autosave does) and the
    commands the bridge sent it."""

    def __init__(self, bridge: Bridge, boot: int, board: str = "t1") -> None:
        self.bridge, self.board = bridge, board
        self.enc = proto.Encoder(board, boot, 0)
        self.sent: list[bytes] = []
        self.commands: list[dict[str, Any]] = []

    def put(self, line: str, lost: bool = False) -> bytes:
        """Send one line; `lost`: it does not reach the bridge (yet)."""
        payload = line[len(proto.PREFIX) : line.rindex("|")].encode()
        if not lost:
            self.sent.append(payload)
            self.deliver(payload)
        return payload

    def deliver(self, payload: bytes) -> None:
        self.bridge.mqtt_payload(self.board, payload)

    def hello(self) -> bytes:
        return self.put(self.enc.hello(0, "1.0", "pico_w", SENSORS, "power"))

    def shot(self, t: int, lost: bool = False) -> bytes:
        return self.put(self.enc.event("shot_start", "baseline", t, {"q": 1, "seg": 1}), lost)

    def twenty(self, t: int, lost: bool = False) -> bytes:
        return self.put(self.enc.event("pass", "hole", t, {"dur_us": 900}), lost)


def make(folder: Path, clock: Clock | None = None) -> Bridge:
    """A bridge on the journals in `folder`: a new one each time, as after a kill -9 and a restart."""
    bridge = Bridge(folder, GameSetup("tournament-2019", ("Ana", "Ben")), None, None, clock or Clock())
    bridge.mqtt_send = lambda board, payload: None
    return bridge


def request(bridge: Bridge, body: dict[str, Any]) -> dict[str, Any]:
    return bridge.mqtt_input("t1", json.dumps(body).encode())


def records(bridge: Bridge) -> list[dict[str, Any]]:
    return journal.read(bridge.games["t1"].session.journal.path, damaged_ok=True).records


def manual(bridge: Bridge) -> list[str]:
    return [r["in"] for r in records(bridge) if r.get("src") == "manual"]


def holds(bridge: Bridge) -> list[str]:
    return [r["hold"] for r in records(bridge) if r.get("src") == "bridge"]


def test_a_resent_entry_id_across_a_new_is_answered_as_the_first_time_and_not_entered(tmp_path: Path) -> None:
    bridge = make(tmp_path)
    assert request(bridge, {"id": "new-1", "new": {"players": ["Ana", "Ben"]}})["ok"]
    first = request(bridge, {"id": "phone-41", "line": "shot in"})
    assert first["ok"] and first["entry"] == 1
    assert request(bridge, {"id": "new-2", "new": {"players": ["Cy", "Di"]}})["ok"]
    # The phone sends it again (it never saw the answer), or the broker hands it over again: the new match is Cy's.
    again = request(bridge, {"id": "phone-41", "line": "shot in"})
    assert (again["ok"], again["entry"]) == (True, 1)
    assert "already entered in the previous match as entry 1" in again["message"]
    assert manual(bridge) == []  # was: "shot in" entered again, a twenty for Cy
    assert bridge.health()["redelivered"]["entries"] == 1
    assert any(e["code"] == "redelivered" for e in bridge.health()["recent_errors"])
    # A copy of the `new` that opened the first match opens nothing more.
    copy = request(bridge, {"id": "new-1", "new": {"players": ["Ana", "Ben"]}})
    assert copy["ok"] and "opened the previous match already" in copy["message"]
    assert len(list((tmp_path / "t1").glob("*.jsonl"))) == 3  # the set-up's, new-1's, new-2's
    bridge.close()

    # A restart: the ids of the earlier match are read back from its journal.
    later = make(tmp_path)
    again = request(later, {"id": "phone-41", "line": "shot in"})
    assert (again["ok"], again["entry"]) == (True, 1) and "previous match" in again["message"]
    assert request(later, {"id": "new-2", "new": {"players": ["Cy", "Di"]}})["entry"] == 0  # the current match's
    assert manual(later) == [] and len(list((tmp_path / "t1").glob("*.jsonl"))) == 3
    # A new id is an entry as always.
    assert request(later, {"id": "phone-42", "line": "shot in"})["entry"] == 1
    assert manual(later) == ["shot in"]
    later.close()


def test_a_refused_entry_is_answered_refused_again_in_the_next_match(tmp_path: Path) -> None:
    bridge = make(tmp_path)
    request(bridge, {"id": "new-1", "new": {"players": ["Ana", "Ben"]}})
    first = request(bridge, {"id": "p1", "line": "Ana 15 nonsense"})
    assert not first["ok"]
    request(bridge, {"id": "new-2", "new": {"players": ["Cy", "Di"]}})
    bridge.close()
    later = make(tmp_path)
    again = request(later, {"id": "p1", "line": "Ana 15 nonsense"})
    assert (again["ok"], again["entry"]) == (False, first["entry"]) and "previous match" in again["message"]
    assert manual(later) == []  # was: journaled again in the new match
    later.close()


def test_a_redelivered_old_boot_event_raises_no_hold_and_a_forged_one_still_does(tmp_path: Path) -> None:
    bridge = make(tmp_path)
    request(bridge, {"id": "new-1", "new": {"players": ["Ana", "Ben"]}})
    old = Board(bridge, 7)
    old.hello()
    old.shot(1000)
    old.twenty(2000)
    request(bridge, {"id": "new-2", "new": {"players": ["Cy", "Di"]}})
    real = Board(bridge, 8)  # the board restarted: its new boot
    real.hello()
    real.shot(3000)
    # The broker, restarted from its last autosave, hands over boot 7's events again.
    for payload in old.sent:
        old.deliver(payload)
    assert holds(bridge) == []  # was: "two boots alive — one of them may be forged"
    assert bridge.health()["redelivered"]["events"] == 3
    assert [r["bt"] for r in records(bridge) if r.get("src") == "board"] == [8, 8]
    real.twenty(4000)
    assert bridge.scoreboard("t1")["board_link"]["boot"] == 8
    bridge.close()

    # The same after a bridge restart: boot 7 is known from the earlier match's journal.
    later = make(tmp_path)
    old.bridge = real.bridge = later
    for payload in old.sent:
        old.deliver(payload)
    assert holds(later) == [] and later.health()["redelivered"]["events"] == 3
    assert later.scoreboard("t1")["board_link"]["boot"] == 8

    # Forged: boot 7's seq 3 with other content, then a new event of boot 7 (a second device with its id).
    forger = proto.Encoder("t1", 7, 0)
    forger.seq = 2
    old.put(forger.event("pass", "hole", 9999, {"dur_us": 5}))
    assert "other-content" in holds(later)
    old.put(forger.event("shot_start", "baseline", 12000, {"q": 2, "seg": 1}))
    assert "two-boots" in holds(later)
    later.close()


def test_a_journal_left_unfinished_by_a_kill_during_a_new_is_set_aside_and_the_board_goes_on(tmp_path: Path) -> None:
    """Found by the redelivery soak: the bridge killed while it created a `new` match's journal left an empty file;
    the board's every message was then refused ("no complete header"), nothing journaled or acked again."""
    bridge = make(tmp_path)
    request(bridge, {"id": "new-1", "new": {"players": ["Ana", "Ben"]}})
    board = Board(bridge, 7)
    board.hello()
    bridge.close()
    (tmp_path / "t1" / "99999999-999999-999999.jsonl").write_bytes(b"")  # created, never written: kill -9
    later = make(tmp_path)
    board.bridge = later
    board.shot(1000)
    assert [r["s"] for r in records(later) if r.get("src") == "board"] == [1, 2]  # was: refused, nothing journaled
    assert (tmp_path / "t1" / "99999999-999999-999999.jsonl.unfinished").exists()
    assert any(e["code"] == "unfinished" for e in later.health()["recent_errors"])
    # The `new` it was creating comes again (never acknowledged to the broker): it opens its match now.
    assert request(later, {"id": "new-2", "new": {"players": ["Cy", "Di"]}})["ok"]
    assert "Cy" in Path(later.games["t1"].session.journal.path).read_text()
    later.close()


def test_a_redelivered_gap_of_an_old_boot_is_not_news(tmp_path: Path) -> None:
    bridge = make(tmp_path)
    old = Board(bridge, 7)
    old.hello()
    old.enc.seq = 4  # seqs 2..4 dropped by the board's outbox
    gap = old.put(old.enc.gap(2, 4))
    Board(bridge, 8).hello()
    n = len(records(bridge))
    old.deliver(gap)
    assert len(records(bridge)) == n and bridge.health()["redelivered"]["events"] == 1
    assert "two-boots" not in holds(bridge)
    bridge.close()


def test_a_redelivered_ping_reply_of_an_old_boot_is_not_a_boot_alive(tmp_path: Path) -> None:
    """A board answers every ping with a reply at QoS 1: the broker queues and keeps those too."""
    bridge = make(tmp_path)
    old = Board(bridge, 7)
    old.hello()
    old.shot(1000)
    reply = old.put(old.enc.reply(1500, "ping", None, True, {"q": 0}))
    Board(bridge, 8).hello()
    old.deliver(reply)
    assert holds(bridge) == [] and bridge.health()["redelivered"]["events"] == 1  # was: two boots alive
    # A reply from beyond what boot 7 sent: boot 7 is alive after boot 8's hello.
    old.enc.seq += 1
    old.put(old.enc.reply(2500, "ping", None, True, {"q": 0}))
    assert holds(bridge) == ["two-boots"]
    bridge.close()


def test_reviewed_after_a_forged_hello_lets_the_game_go_on(tmp_path: Path) -> None:
    clock = Clock()
    bridge = make(tmp_path, clock)
    real = Board(bridge, 7)
    real.hello()
    real.shot(1000)
    Board(bridge, 99).hello()  # the forger
    real.twenty(2000)
    assert holds(bridge) == ["two-boots"]
    assert bridge.submit("t1", "reviewed the board is ours").accepted
    link = bridge.scoreboard("t1")["board_link"]
    assert (link["boot"], link["processed"]) == (7, 3)  # was: boot 99, the forger's
    # The real board's event 4 is lost on the way; 5 comes: the bridge asks the board for 4 (it did not).
    real.enc.seq += 1
    sends: list[bytes] = []
    bridge.mqtt_send = lambda board, payload: sends.append(payload)
    real.shot(3000)
    clock.now += 5
    bridge.tick()
    assert any(json.loads(p)["c"] == "ping" for p in sends)
    assert bridge.scoreboard("t1")["board_link"]["missing"] == [[4, 4]]
    bridge.close()

    # After a restart the board's boot is still the real one.
    later = make(tmp_path, clock)
    assert later.scoreboard("t1")["board_link"]["boot"] == 7
    later.close()


def test_a_hole_is_not_declared_lost_while_the_broker_link_is_down(tmp_path: Path) -> None:
    clock = Clock()
    bridge = make(tmp_path, clock)
    board = Board(bridge, 7)
    board.hello()
    board.shot(1000)
    missing = board.twenty(2000, lost=True)  # event 3 is still on the broker; event 4 comes ahead of it
    board.shot(3000)
    journaled = len(records(bridge))
    bridge.link_state("mqtt", "mqtt://127.0.0.1:1883", False, "connection lost")
    clock.now += 3 * EARLY_WAIT
    bridge.tick()
    bridge.link_state("mqtt", "mqtt://127.0.0.1:1883", True, "session resumed")
    clock.now += EARLY_WAIT / 2
    bridge.tick()
    assert len(records(bridge)) == journaled  # was: seq 3 journaled as lost while the broker still had it
    # The board itself goes offline (its will) and comes back: the same.
    bridge.board_state("t1", False)
    clock.now += 3 * EARLY_WAIT
    bridge.tick()
    bridge.board_state("t1", True)
    clock.now += EARLY_WAIT / 2
    bridge.tick()
    assert len(records(bridge)) == journaled
    # The broker hands over a long queue at once: while the bridge still works through it, the wait does not run.
    backlog = [5000]
    bridge.mqtt_backlog = lambda: backlog[0]
    clock.now += 3 * EARLY_WAIT
    bridge.tick()
    backlog[0] = 3
    clock.now += EARLY_WAIT / 2
    bridge.tick()
    assert len(records(bridge)) == journaled
    board.deliver(missing)
    kept = [(r["s"], r["m"]) for r in records(bridge) if r.get("src") == "board"]
    assert kept == [(1, "hello"), (2, "shot_start"), (3, "pass"), (4, "shot_start")]
    bridge.close()


def test_a_late_event_after_its_hole_was_declared_lost_is_said(tmp_path: Path) -> None:
    clock = Clock()
    bridge = make(tmp_path, clock)
    board = Board(bridge, 7)
    board.hello()
    missing = board.shot(1000, lost=True)
    board.twenty(2000)
    clock.now += EARLY_WAIT + 1
    bridge.tick()
    assert [r["m"] for r in records(bridge) if r.get("src") == "board"] == ["hello", "gap", "pass"]
    board.deliver(missing)
    health = bridge.health()
    assert health["late_after_lost"] == 1
    [late] = [e for e in health["recent_errors"] if e["code"] == "late"]
    assert "came after it was declared lost" in late["reason"]
    bridge.close()


def copies_run(folder: Path, rng: random.Random, steps: int) -> dict[str, int]:
    """One random evening on one board: events, reboots, entries, `new`s and bridge restarts, with any message sent
    so far handed over again at random moments (as a broker restarted from its autosave does). Returns what was done;
    fails if anything was journaled twice or held."""
    bridge = make(folder)
    request(bridge, {"id": "new-0", "new": {"players": ["Ana", "Ben"]}})
    boot, rids, news = 1, 0, 1
    board = Board(bridge, boot)
    board.hello()
    boards = [board]
    sent: list[tuple[str, Any]] = []  # ("raw", payload) or ("input", request)
    done = {"copies": 0, "restarts": 0}
    for _ in range(steps):
        roll = rng.random()
        if roll < 0.35:
            sent.append(("raw", board.shot(rng.randrange(10**6)) if rng.random() < 0.5 else board.twenty(1)))
        elif roll < 0.42:
            boot += 1
            board = Board(bridge, boot)
            boards.append(board)
            sent.append(("raw", board.hello()))
        elif roll < 0.55:
            rids += 1
            body = {"id": f"p{rids}", "line": rng.choice(["hit", "miss", "shot in", "undo"])}
            request(bridge, body)
            sent.append(("input", body))
        elif roll < 0.62:
            news += 1
            body = {"id": f"new-{news}", "new": {"players": rng.choice([["Ana", "Ben"], ["Cy", "Di"]])}}
            request(bridge, body)
            sent.append(("input", body))
        elif roll < 0.68:
            bridge.close()
            bridge = make(folder)
            for b in boards:
                b.bridge = bridge
            done["restarts"] += 1
        elif sent:
            kind, what = rng.choice(sent)
            if kind == "raw":
                bridge.mqtt_payload("t1", what)
            else:
                request(bridge, what)
            done["copies"] += 1
    bridge.close()
    everything: list[dict[str, Any]] = []
    for path in sorted((folder / "t1").glob("*.jsonl")):
        everything += journal.read(str(path)).records
    events = [(r["bt"], r["s"]) for r in everything if r.get("src") == "board"]
    assert len(events) == len(set(events)), "a board event journaled twice"
    entered = [r["rid"] for r in everything if r.get("src") == "manual" and "rid" in r]
    assert len(entered) == len(set(entered)) == rids, "an entry journaled twice, or lost"
    assert [r for r in everything if r.get("src") == "bridge"] == [], "a hold where none was due"
    assert len(list((folder / "t1").glob("*.jsonl"))) == news + 1  # the set-up's journal and one per `new`
    return done


def test_copies_of_anything_at_any_moment_are_applied_once_in_random_evenings(tmp_path: Path) -> None:
    """30 random evenings of 40 steps (a few seconds); `make soak` runs 1,000 (FLICKBOARD_COPIES_RUNS)."""
    runs = int(os.environ.get("FLICKBOARD_COPIES_RUNS", "30"))
    rng = random.Random(34)
    copies = restarts = 0
    for run in range(runs):
        done = copies_run(tmp_path / str(run), rng, 40)
        copies += done["copies"]
        restarts += done["restarts"]
    assert copies > 5 * runs and restarts > runs


def test_a_board_message_is_acknowledged_to_the_broker_only_once_handled(broker: Broker) -> None:
    """A bridge killed while board messages wait in its inbox gets them again from the broker. On the code before,
    paho acknowledged each as soon as it was queued, so the broker counted it delivered: an event the board then
    forgot in a reboot was lost, and came back only as an old copy after a broker restart (a false two-boots hold)."""
    release = threading.Event()

    @contextlib.contextmanager
    def stuck() -> Iterator[None]:  # the first bridge is killed before its batch ends
        release.wait(20)
        yield

    got: list[bytes] = []
    first = MqttLink(f"mqtt://{broker.host}:{broker.port}", "bridge-acks", None, lambda b, p: None, batch=stuck)
    first.start()
    board = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="board-acks")
    board.connect(broker.host, broker.port)
    board.loop_start()
    try:
        assert first.wait_ready(10)
        board.publish("flickboard/t1/raw", b'{"v":1,"b":"t1","bt":1,"s":1}', qos=1).wait_for_publish(10)
        deadline = time.monotonic() + 10
        while first.payloads < 1:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        first.client.loop_stop()  # kill -9: the connection ends with no DISCONNECT
        sock = first.client.socket()
        assert sock is not None
        sock.close()
        second = MqttLink(
            f"mqtt://{broker.host}:{broker.port}",
            "bridge-acks",
            None,
            lambda b, p: got.append(p),
            batch=contextlib.nullcontext,
        )
        second.start()
        try:
            deadline = time.monotonic() + 10
            while not got and time.monotonic() < deadline:
                time.sleep(0.05)
            assert got == [b'{"v":1,"b":"t1","bt":1,"s":1}']  # was: [] (acknowledged, never handled)
        finally:
            second.stop()
    finally:
        release.set()
        board.loop_stop()
