"""Issue 19, in-process: a forged `hello`, a forged event under a taken sequence number, and a damaged journal,
against the real bridge (host/board/bridge/) writing real journal files. Board lines come from the firmware's own
encoder (firmware/fb/proto.py), for the real board and for the forger alike. Each test fails on the code before the
fix: there the forged hello made every later real event 'stale', the real event under a taken seq was dropped as a
plain duplicate, and a flipped byte in the last complete line was cut off as an incomplete write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attacks
from fb import proto  # the firmware's encoder

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.core import journal
from flickboard.mqtt import BRIDGE_HEALTH

SENSORS = [{"name": "hole", "kind": "beam"}]


class Bus:
    def __init__(self) -> None:
        self.msgs: list[tuple[str, Any]] = []

    def __call__(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        self.msgs.append((topic, json.loads(payload)))

    def last(self, topic: str) -> Any:
        return [m for t, m in self.msgs if t == topic][-1]


class Port:
    """One serial port: what is written on it goes to the bridge, what the bridge answers is kept."""

    def __init__(self, bridge: Bridge, name: str) -> None:
        self.bridge, self.name = bridge, name
        self.answers: list[dict[str, Any]] = []

    def write(self, line: str) -> None:
        self.bridge.serial_line(self.name, line, self._answer)

    def _answer(self, line: str) -> None:
        self.answers.append(json.loads(line.strip().split("|")[1]))

    def acks(self) -> list[tuple[int, int]]:
        return [(c["bt"], c["s"]) for c in self.answers if c["c"] == "ack"]


def make(tmp: Path) -> tuple[Bridge, Bus]:
    bus = Bus()
    return Bridge(tmp / "journals", GameSetup("tournament-2019", ("Ana", "Ben")), None, bus), bus


def records(bridge: Bridge, board: str = "t1", damaged_ok: bool = False) -> list[dict[str, Any]]:
    path = bridge.games[board].session.journal.path
    return (journal.read(path, damaged_ok=True) if damaged_ok else journal.read(path)).records


def test_a_forged_hello_on_a_second_port_holds_the_game_and_every_real_event_is_kept(tmp_path: Path) -> None:
    bridge, bus = make(tmp_path)
    real, fake = Port(bridge, "/dev/ttyACM0"), Port(bridge, "/dev/ttyUSB9")
    board = proto.Encoder("t1", 7, 0)
    real.write(board.hello(0, "1.0", "pico_w", SENSORS, "power"))
    real.write(board.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1}))
    # The attacker: one valid hello with another boot id, from the firmware's own encoder, on another port.
    forged = proto.Encoder("t1", 99, 0).hello(0, "1.0", "pico_w", SENSORS, "power")
    fake.write(forged)
    real.write(board.event("pass", "hole", 2000, {"dur_us": 900}))  # the real twenty

    recs = records(bridge)
    kept = [(r["bt"], r["s"], r["m"]) for r in recs if r["src"] == "board"]
    assert kept == [(7, 1, "hello"), (7, 2, "shot_start"), (99, 1, "hello"), (7, 3, "pass")]  # was: pass dropped
    [hold] = [r for r in recs if r["src"] == "bridge"]
    assert hold["hold"] == "two-boots" and hold["boots"] == [7, 99] and hold["in"].startswith("hold ")
    assert real.acks()[-1] == (7, 3)  # the real board's event is durable and acknowledged: it is not lost

    doc = bus.last("flickboard/t1/scoreboard")
    assert doc["needs_review"] is True
    [item] = doc["review"]
    assert "two boots alive" in item["text"] and "'reviewed'" in item["text"]
    assert doc["queued"] == 1  # the real pass waits for a person, it is not applied behind their back
    assert doc["score"]["current"]["provisional_twenties"] == []
    bridge.tick()
    health = bus.last(BRIDGE_HEALTH)
    assert health["holds"]["two_boots"] == 1 and health["protocol"]["counters"]["conflicts"] == 1
    assert health["boards"]["t1"]["review"] == [item["text"]]
    assert any(e["code"] == "two-boots" for e in health["recent_errors"])

    # A restart (the forged hello comes back, as a retained message would): the hold is still there, once.
    bridge.close()
    again, _ = make(tmp_path)
    real.bridge = fake.bridge = again
    fake.write(forged)
    real.write(board.event("pass", "hole", 3000, {"dur_us": 950}))
    recs = records(again)
    assert [r["hold"] for r in recs if r["src"] == "bridge"] == ["two-boots"]  # the same pair: not held twice
    assert [(r["bt"], r["s"]) for r in recs if r["src"] == "board"][-1] == (7, 4)
    assert real.acks()[-1] == (7, 4) and again.scoreboard("t1")["needs_review"] is True

    # The scorer checks the board and says so: the held real events go on in the board's order.
    out = again.submit("t1", "reviewed forged hello on a second port")
    assert out.accepted
    doc = again.scoreboard("t1")
    assert doc["queued"] == 0 and not any("two boots" in r["text"] for r in doc["review"])
    assert doc["score"]["current"]["provisional_twenties"] == [{"entry": 5, "side": "Ana"}]
    # (the second real pass in one shot is a question of its own, which the sensors' rules ask as usual)
    assert [r["entry"] for r in doc["review"]] == [6]


def test_a_forged_event_under_the_next_seq_does_not_hide_the_real_one(tmp_path: Path) -> None:
    bridge, bus = make(tmp_path)
    port = Port(bridge, "/dev/ttyACM0")
    board = proto.Encoder("t1", 7, 0)
    port.write(board.hello(0, "1.0", "pico_w", SENSORS, "power"))
    port.write(board.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1}))
    # The attacker knows the next seq (3) and sends other content under it first.
    forger = proto.Encoder("t1", 7, 2)
    port.write(forger.event("baseline_rest", "baseline", 1500, {"q": 1, "seg": 1}))
    real = board.event("pass", "hole", 2000, {"dur_us": 900})
    port.write(real)  # was: a duplicate, dropped without a word

    recs = records(bridge)
    [hold] = [r for r in recs if r["src"] == "bridge"]
    assert hold["hold"] == "other-content" and (hold["bt"], hold["s"], hold["m"]) == (7, 3, "pass")
    assert hold["f"] == {"n": "hole", "dur_us": 900} and hold["t"] == 2000  # the real event, whole, in the journal
    doc = bus.last("flickboard/t1/scoreboard")
    assert doc["needs_review"] and "twice with different content" in doc["review"][0]["text"]
    assert port.acks()[-1] == (7, 3)

    port.write(real)  # the board resends it (our ack was lost): said once, not again
    bridge.close()
    again, _ = make(tmp_path)
    port.bridge = again
    port.write(real)  # and after a restart too
    assert [r["hold"] for r in records(again) if r["src"] == "bridge"] == ["other-content"]
    assert again.holds["other_content"] == 0 and again.tracker.counters.duplicates == 1


def test_a_flipped_byte_in_the_last_acknowledged_line_is_damage_held_and_nothing_is_lost(tmp_path: Path) -> None:
    """The bridge's journal after a short game: one byte flipped inside the last complete line. Before the fix, it
    was cut off as 'incomplete, never acknowledged' and the score went back without a hold."""
    bridge, _ = make(tmp_path)
    port = Port(bridge, "/dev/ttyACM0")
    board = proto.Encoder("t1", 7, 0)
    port.write(board.hello(0, "1.0", "pico_w", SENSORS, "power"))
    lines = [
        board.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1}),
        board.event("pass", "hole", 2000, {"dur_us": 900}),
    ]
    for line in lines:
        port.write(line)
    bridge.submit("t1", "zone")
    path = Path(bridge.games["t1"].session.journal.path)
    bridge.close()
    data = path.read_bytes()
    last = data.rstrip(b"\n").rsplit(b"\n", 1)[1] + b"\n"
    at = data.rindex(b'"in":"zone"') + 6
    flipped = data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1 :]  # "zone" -> "Zone": still JSON
    path.write_bytes(flipped)

    again, bus = make(tmp_path)
    port.bridge = again
    for line in lines:
        port.write(line)  # the board resends: duplicates, acked from the journal as it was
    assert path.read_bytes().startswith(flipped)  # nothing cut off: the damaged line is still there
    saved = Path(f"{path}.damaged-{len(data) - len(last)}")
    assert saved.read_bytes() == flipped[len(data) - len(last) :]  # the damaged bytes, kept aside as they are
    assert not list(path.parent.glob("*.torn-*"))
    recs = records(again, damaged_ok=True)
    [hold] = [r for r in recs if r["src"] == "bridge"]
    assert hold["hold"] == "damage" and hold["line"] == 5 and hold["saved_to"] == str(saved)
    assert port.acks()[-1] == (7, 3) and again.tracker.counters.new == 0  # nothing journaled twice
    doc = again.scoreboard("t1")
    assert doc["needs_review"] and "line 5 of the journal is damaged" in doc["review"][0]["text"]
    assert "it seems to read 'Zone'" in doc["review"][0]["text"]
    again.tick()
    health = bus.last(BRIDGE_HEALTH)
    assert health["boards"]["t1"]["damaged_lines"][0]["line"] == 5
    assert any(e["code"] == "damaged" for e in health["recent_errors"])
    again.close()
    third, _ = make(tmp_path)  # a restart says it again (the hold is journaled), without a second hold
    assert third.scoreboard("t1")["needs_review"]
    assert [r["hold"] for r in records(third, damaged_ok=True) if r["src"] == "bridge"] == ["damage"]


def test_a_damaged_middle_line_with_no_board_list_leaves_every_board_acknowledged(tmp_path: Path) -> None:
    """Before the fix, a damaged middle line refused the whole journal: the board was never acked again, and a
    bridge with no board list said it in log lines only."""
    bridge, _ = make(tmp_path)
    ports = {b: Port(bridge, f"/dev/tty-{b}") for b in ("t1", "t2", "t3")}
    encs = {b: proto.Encoder(b, 5, 0) for b in ports}
    sent: dict[str, list[str]] = {b: [] for b in ports}
    for b, port in ports.items():
        sent[b].append(encs[b].hello(0, "1.0", "pico_w", SENSORS, "power"))
        for i in range(4):
            sent[b].append(encs[b].event("pass", "hole", 1000 * (i + 1), {"dur_us": 900 + i}))
        for line in sent[b]:
            port.write(line)
    paths = {b: Path(bridge.games[b].session.journal.path) for b in ports}
    bridge.close()
    for path in paths.values():  # line 3 of each (seq 2): its bytes garbled beyond reading
        lines = path.read_bytes().splitlines(keepends=True)
        lines[2] = b"\x00" * (len(lines[2]) - 1) + b"\n"
        path.write_bytes(b"".join(lines))
    again, _ = make(tmp_path)
    for b, port in ports.items():
        port.bridge = again
        port.write(encs[b].event("pass", "hole", 9000, {"dur_us": 999}))  # seq 6: the next one
        assert port.acks()[-1] == (5, 6), b  # seq 2, unreadable, was acked then: it is not asked for again
        doc = again.scoreboard(b)
        assert doc["needs_review"] and doc["board_link"]["in_sync"]
    assert again.holds["damaged_lines"] == 3


def test_each_attack_25_times_loses_nothing_and_is_never_silent() -> None:
    """The short version of `make soak`'s attack table (tests/support/attacks.py): 25 random runs of each attack.
    Before the fix: forged hellos lost about half the real events and were silent every time, a forged event under
    the next seq hid the real one every time, and a flipped bit refused the journal."""
    tallies = attacks.run(25, seed=19)
    for name, t in tallies.items():
        assert t.runs == 25 and t.events > 0, name
        assert (t.lost, t.duplicated, t.unacked, t.silent, t.spurious) == (0, 0, 0, 0, 0), (name, t.problems[:3])
        assert t.held == (0 if name == "torn-write" else 25), name


def test_a_flipped_digit_in_a_damaged_seq_never_acks_an_event_that_did_not_come(tmp_path: Path) -> None:
    """Found by the attack runs: the last board line's "s":4 flipped to "s":5 still parses. Trusting it acked seq 5,
    and the board's real seq 5 was then dropped as a duplicate."""
    bridge, _ = make(tmp_path)
    port = Port(bridge, "/dev/ttyACM0")
    board = proto.Encoder("t1", 7, 0)
    port.write(board.hello(0, "1.0", "pico_w", SENSORS, "power"))
    for i in range(3):
        port.write(board.event("pass", "hole", 1000 * (i + 1), {"dur_us": 900}))
    path = Path(bridge.games["t1"].session.journal.path)
    bridge.close()
    data = path.read_bytes()
    at = data.rindex(b'"s":4') + 4
    path.write_bytes(data[:at] + b"5" + data[at + 1 :])  # '4' ^ 0x01 == '5'
    again, _ = make(tmp_path)
    port.bridge = again
    port.write(board.event("pass", "hole", 9000, {"dur_us": 950}))  # the real seq 5
    assert port.acks()[-1] == (7, 5)
    assert [(r["s"], r["t"]) for r in records(again, damaged_ok=True) if r["src"] == "board"][-1] == (5, 9000)


def test_a_forger_changing_boot_id_at_every_message_neither_silences_the_board_nor_grows_the_holds(
    tmp_path: Path,
) -> None:
    bridge, _ = make(tmp_path)
    real, fake = Port(bridge, "/dev/ttyACM0"), Port(bridge, "/dev/ttyUSB9")
    board = proto.Encoder("t1", 7, 0)
    real.write(board.hello(0, "1.0", "pico_w", SENSORS, "power"))
    for i in range(200):  # 200 forged boots, each between two real events
        fake.write(proto.Encoder("t1", 1000 + i, 0).hello(0, "1.0", "pico_w", SENSORS, "power"))
        real.write(board.event("chatter", "ditch", 1000 * (i + 1), {"bursts": 1, "edges": 2}))
    recs = records(bridge)
    assert [r["s"] for r in recs if r["src"] == "board" and r["bt"] == 7] == list(range(1, 202))  # every one kept
    assert real.acks()[-1] == (7, 201)
    assert len([r for r in recs if r["src"] == "bridge"]) == 64 and bridge.holds["two_boots_beyond"] == 200 - 64
    assert bridge.scoreboard("t1")["needs_review"]


def test_a_damaged_set_up_line_that_still_reads_is_taken_as_it_seems_and_held(tmp_path: Path) -> None:
    """Line 1 (the match's set-up) with one flipped byte in its checksum: the journal used to be refused, and the
    board was never acked again. Now it is read as it seems to be, held and said; a set-up that no longer reads at
    all is still refused in one line."""
    bridge, _ = make(tmp_path)
    port = Port(bridge, "/dev/ttyACM0")
    board = proto.Encoder("t1", 7, 0)
    port.write(board.hello(0, "1.0", "pico_w", SENSORS, "power"))
    port.write(board.event("pass", "hole", 1000, {"dur_us": 900}))
    path = Path(bridge.games["t1"].session.journal.path)
    bridge.close()
    data = path.read_bytes()
    at = data.index(b'"crc":"') + 7
    path.write_bytes(data[:at] + (b"0" if data[at : at + 1] != b"0" else b"1") + data[at + 1 :])
    again, _ = make(tmp_path)
    port.bridge = again
    port.write(board.event("pass", "hole", 2000, {"dur_us": 950}))
    assert port.acks()[-1] == (7, 3)
    doc = again.scoreboard("t1")
    assert doc["needs_review"] and any("the match's set-up" in r["text"] for r in doc["review"])
    assert doc["score"]["players"] == ["Ana", "Ben"]


def test_a_set_up_line_that_no_longer_reads_keeps_the_old_match_and_starts_a_held_new_one(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path)
    port = Port(bridge, "/dev/ttyACM0")
    board = proto.Encoder("t1", 7, 0)
    port.write(board.hello(0, "1.0", "pico_w", SENSORS, "power"))
    port.write(board.event("pass", "hole", 1000, {"dur_us": 900}))
    old = Path(bridge.games["t1"].session.journal.path)
    bridge.close()
    data = old.read_bytes()
    damaged = data.replace(b'"kind":"flickboard-journal"', b'"kind"-"flickboard-journal"', 1)  # not JSON now
    old.write_bytes(damaged)
    again, _ = make(tmp_path)
    port.bridge = again
    port.write(board.event("pass", "hole", 2000, {"dur_us": 950}))  # seq 3: acked, not taken for a new board
    assert port.acks()[-1] == (7, 3) and again.tracker.counters.new == 1
    assert old.read_bytes() == damaged  # the old match is kept as it is
    doc = again.scoreboard("t1")
    assert doc["journal"] != str(old) and doc["needs_review"]
    assert any("set-up line of the journal" in r["text"] and "2 entries" in r["text"] for r in doc["review"])
