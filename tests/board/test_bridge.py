"""The bridge core (host/board/bridge/) in-process: board lines built by the firmware's own encoder
(firmware/fb/proto.py) and manual entries in, journal + acks + retained scoreboard + moments out. The links and the
broker are proven end to end in tests/system/test_bridge_e2e.py; here every branch is driven directly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from flickboard import i18n
from flickboard.board.bridge import Bridge, BridgeError, GameSetup
from flickboard.board.protocol import decode_line
from flickboard.core import journal
from flickboard.mqtt import BRIDGE_HEALTH

ROOT = Path(__file__).resolve().parents[2]
from fb import proto  # noqa: E402


class Board:
    """A board's side of the wire: the firmware encoder, and the commands the bridge sends back."""

    def __init__(self, bridge: Bridge, board: str = "t1", boot: int = 7) -> None:
        self.bridge = bridge
        self.enc = proto.Encoder(board, boot, 0)
        self.sent: list[dict[str, Any]] = []
        self.lines: list[str] = []

    def send(self, line: str) -> None:
        body = line.strip().split("|")[1]
        self.sent.append(json.loads(body))

    def feed(self, line: str) -> None:
        self.lines.append(line)
        self.bridge.serial_line("/dev/ttyX", line, self.send)

    def hello(self) -> None:
        self.feed(self.enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))

    def ev(self, kind: str, sensor: str, **fields: int) -> str:
        line = self.enc.event(kind, sensor, 1000 * self.enc.seq, fields)
        self.feed(line)
        return line

    def acks(self) -> list[int]:
        return [c["s"] for c in self.sent if c["c"] == "ack"]


class Bus:
    def __init__(self) -> None:
        self.msgs: list[tuple[str, Any, int, bool]] = []

    def __call__(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        self.msgs.append((topic, json.loads(payload), qos, retain))

    def last(self, topic: str) -> Any:
        return [m for t, m, _, _ in self.msgs if t == topic][-1]

    def all(self, topic: str) -> list[Any]:
        return [m for t, m, _, _ in self.msgs if t == topic]


def make(tmp_path: Path, boards: tuple[str, ...] | None = None) -> tuple[Bridge, Bus]:
    bus = Bus()
    return Bridge(tmp_path / "journals", GameSetup("tournament-2019", ("Ana", "Ben")), boards, bus), bus


def test_events_are_journaled_then_acked_and_the_scoreboard_follows(tmp_path: Path) -> None:
    bridge, bus = make(tmp_path)
    b = Board(bridge)
    b.hello()
    b.ev("shot_start", "baseline", q=1, seg=1)
    b.ev("pass", "hole", dur_us=900)
    assert b.acks() == [1, 2, 3]  # one cumulative ack per event, each after the journal append
    path = bridge.games["t1"].session.journal.path
    recs = journal.read(path).records
    assert [(r["src"], r["m"], r["s"]) for r in recs] == [
        ("board", "hello", 1),
        ("board", "shot_start", 2),
        ("board", "pass", 3),
    ]
    doc = bus.last("flickboard/t1/scoreboard")
    assert doc["format"] == "flickboard-scoreboard" and doc["version"] == 1
    assert doc["score"]["current"]["provisional_twenties"] == [{"entry": 3, "side": "Ana"}]
    assert doc["open_shot"]["player"] == "Ana" and doc["board_link"]["online"] is True
    assert doc["board_link"]["in_sync"] and doc["board_link"]["processed"] == 3
    moments = bus.all("flickboard/t1/events")
    assert [m["type"] for m in moments] == ["shot", "twenty"] and moments[1]["side"] == "Ana"
    assert moments[1]["provisional"] is True and moments[1]["entry"] == 3
    # retained scoreboard, non-retained moments
    assert all(r for t, _, _, r in bus.msgs if t.endswith("/scoreboard"))
    assert not any(r for t, _, _, r in bus.msgs if t.endswith("/events"))


def test_duplicates_are_dropped_and_acked_again(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path)
    b = Board(bridge)
    b.hello()
    line = b.ev("shot_start", "baseline", q=1, seg=1)
    b.ev("pass", "hole", dur_us=900)
    b.feed(line)  # resent: our ack got lost
    assert b.acks() == [1, 2, 3, 3]
    assert len(bridge.games["t1"].session.journal.records) == 3
    assert bridge.tracker.counters.duplicates == 1


def test_a_restarted_bridge_counts_nothing_twice(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path)
    b = Board(bridge)
    b.hello()
    b.ev("shot_start", "baseline", q=1, seg=1)
    b.ev("pass", "hole", dur_us=900)
    before = bridge.scoreboard("t1")["score"]
    bridge.close()
    again, _ = make(tmp_path)  # as after kill -9: the journal is the truth
    b.bridge = again
    for line in b.lines[1:]:  # the board resends what it thinks is unacked
        b.feed(line)
    assert len(again.games["t1"].session.journal.records) == 3
    assert again.scoreboard("t1")["score"] == before
    assert b.acks()[-1] == 3
    b.ev("shot_start", "baseline", q=3, seg=9)  # and carries on where it was
    assert again.scoreboard("t1")["score"]["current"]["to_shoot"] == "Ben"


def test_bad_lines_are_counted_with_a_reason_and_change_nothing(tmp_path: Path) -> None:
    bridge, bus = make(tmp_path, boards=("t1",))
    b = Board(bridge)
    b.hello()
    before = bridge.scoreboard("t1")["score"]
    good = b.enc.event("pass", "hole", 5, {"dur_us": 900})
    b.feed(good[:-3] + "000")  # CRC garbled
    b.feed('FB1|{"v":1,')  # half a line
    b.feed("FB2|{}|00000000")  # another protocol version
    b.feed(proto.Encoder("stranger", 1, 0).hello(0, "1", "p", [], "power"))  # not in this bridge's list
    b.feed(proto.frame('{"v":1,"b":"t1","bt":7,"s":9,"t":0,"m":"teleport"}'))
    assert bridge.scoreboard("t1")["score"] == before
    errors = bridge.health()["protocol"]["counters"]["errors"]
    assert errors == {"crc": 1, "frame": 1, "version": 1, "board": 1, "unknown": 1}
    reasons = [e["reason"] for e in bridge.health()["recent_errors"]]
    assert any("CRC mismatch" in r for r in reasons) and any("not in this bridge's list" in r for r in reasons)
    assert len(bridge.games["t1"].session.journal.records) == 1 and "stranger" not in bridge.games
    bridge.tick()
    assert bus.last(BRIDGE_HEALTH)["protocol"]["counters"]["errors"]["crc"] == 1


def test_manual_entries_over_the_input_topic(tmp_path: Path) -> None:
    bridge, bus = make(tmp_path, boards=("t1",))  # a listed board's first entry starts the bridge's game
    ok = bridge.mqtt_input("t1", json.dumps({"id": "a", "line": "shot zone"}).encode())
    assert ok == {"id": "a", "ok": True, "entry": 1, "message": ok["message"], "board": "t1"}
    assert bus.last("flickboard/t1/result")["id"] == "a"
    illegal = bridge.mqtt_input("t1", json.dumps({"id": 2, "line": "shot Ana hit"}).encode())
    assert not illegal["ok"] and illegal["entry"] == 2 and "Ben's shot" in illegal["message"]
    before = bridge.scoreboard("t1")["score"]
    for bad, why in [
        (b"not json", "not JSON"),
        (b"[1]", "not a JSON object"),
        (json.dumps({"line": "x" * 300}).encode(), "at most 200"),
        (json.dumps({"line": "hit", "new": {}}).encode(), "exactly one"),
        (json.dumps({"lines": "hit"}).encode(), "unknown key"),
        (json.dumps({"line": 5}).encode(), "non-empty string"),
        (b"{" * 5000, "longer than"),
    ]:
        res = bridge.mqtt_input("t1", bad)
        assert not res["ok"] and why in res["message"], (bad[:30], res)
    after = bridge.scoreboard("t1")
    assert after["score"]["current"] == before["current"] and after["score"]["rejected_inputs"] == 1
    assert bridge.inputs == {"accepted": 1, "refused": 1, "invalid": 7, "stale": 0}


def test_a_new_match_starts_a_new_journal_and_keeps_delivery(tmp_path: Path) -> None:
    bridge, bus = make(tmp_path)
    b = Board(bridge)
    b.hello()
    first = bridge.games["t1"].session.journal.path
    res = bridge.mqtt_input("t1", json.dumps({"new": {"rules": "beginner", "players": ["Cy", "Di"]}}).encode())
    assert res["ok"], res
    assert bridge.games["t1"].session.journal.path != first
    assert bus.last("flickboard/t1/scoreboard")["score"]["rules"] == "beginner"
    b.ev("shot_start", "baseline", q=1, seg=1)
    assert bridge.tracker.counters.gaps == 0 and b.acks()[-1] == 2
    bridge.close()
    again, _ = make(tmp_path)
    assert again.games == {} and again.game("t1").session.journal.path != first
    assert again.tracker.ack_for("t1") == (7, 2)  # the delivery baseline came from the new journal's set-up
    bad = again.mqtt_input("t1", json.dumps({"new": {"rules": "nope", "players": ["A", "B"]}}).encode())
    assert not bad["ok"] and "nope" in bad["message"]


def test_a_resent_new_request_opens_one_match_even_across_a_restart(tmp_path: Path) -> None:
    """A `new` whose answer was lost is sent again with the same id (the tournament hall does): the board's match is
    already open, so the bridge answers as the first time and opens no second journal, also after a restart."""
    bridge, _ = make(tmp_path)
    req = json.dumps({"id": "hall-7", "new": {"rules": "beginner", "players": ["Cy", "Di"]}}).encode()
    first = bridge.mqtt_input("t1", req)
    assert first["ok"] and first["id"] == "hall-7"
    path = bridge.games["t1"].session.journal.path
    assert bridge.submit("t1", "shot").accepted  # the match goes on
    assert bridge.mqtt_input("t1", req) == first and bridge.games["t1"].session.journal.path == path
    bridge.close()
    again, _ = make(tmp_path)
    assert again.mqtt_input("t1", req) == first  # the id is in the journal's set-up line: it survives a restart
    assert again.games["t1"].session.journal.path == path and again.games["t1"].session.journal.count == 1
    assert len(list((tmp_path / "journals" / "t1").glob("*.jsonl"))) == 2  # the first match's and this one
    other = again.mqtt_input("t1", req.replace(b"hall-7", b"hall-8"))  # another request: another match
    assert other["ok"] and again.games["t1"].session.journal.path != path


def test_a_board_reboot_with_lost_events_holds_the_game_for_review(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path)
    b = Board(bridge)
    b.hello()
    b.ev("shot_start", "baseline", q=1, seg=1)
    b.enc.event("pass", "hole", 5, {"dur_us": 900})  # seq 3 never arrives
    b.feed(b.enc.event("pass", "hole", 6, {"dur_us": 900}))  # seq 4 does: 3 is missing, the bridge pings
    assert {"c": "ping"} in b.sent
    b.enc = proto.Encoder("t1", 8, 0)  # the board restarts before resending
    b.hello()
    doc = bridge.scoreboard("t1")
    assert doc["needs_review"] and "lost events 3..3" in doc["review"][0]["text"]


def test_a_bad_setup_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(BridgeError, match="cannot set up a game"):
        Bridge(tmp_path, GameSetup("tournament-2019", ("Solo",)))


def test_a_refused_new_match_carries_its_sentence_for_a_french_scorer(tmp_path: Path) -> None:
    """A `new` the rules refuse (two names that are too alike) is answered with the rules' sentence beside the English
    message, as an entry's refusal is: the phone says it in the scorer's language."""
    bridge, _ = make(tmp_path)
    bad = bridge.mqtt_input(
        "t1", json.dumps({"id": 4, "new": {"rules": "beginner", "players": ["Zoé", "zoe"]}}).encode()
    )
    assert not bad["ok"] and bad["message"].startswith("cannot set up a game: ") and bad["id"] == 4, bad
    said = bad["sentence"]
    assert said["text"] == "cannot set up a game: {reason}" and isinstance(said["values"]["reason"], dict), said
    french = _say_said(said, "fr")
    assert french.startswith("impossible de préparer la partie : ") and "cannot" not in french, french
    assert bridge.games["t1"].session.journal.count == 0  # nothing was opened or entered


def _say_said(said: dict[str, Any], lang: str) -> str:
    """A sentence as a page gets it ({text, values}, values that may be sentences too), said in `lang`."""
    values = {k: _say_said(v, lang) if isinstance(v, dict) else v for k, v in said["values"].items()}
    return i18n.say(said["text"], lang, **values)


def test_decoded_lines_match_the_vectors_host_decoder() -> None:
    line = proto.Encoder("t1", 1, 0).event("pass", "hole", 5, {"dur_us": 900})
    assert decode_line(line).fields == {"n": "hole", "dur_us": 900}


def test_events_are_applied_in_the_boards_order(tmp_path: Path) -> None:
    """docs/protocol.md, Delivery: an event that overtakes a missing one waits for it, so the game sees the
    shot start before the twenty, whatever order the wire delivered them in."""
    bridge, _ = make(tmp_path)
    b = Board(bridge)
    b.hello()
    start = b.enc.event("shot_start", "baseline", 1000, {"q": 1, "seg": 1})  # seq 2, delayed
    b.ev("pass", "hole", dur_us=900)  # seq 3 arrives first: kept, not journaled, not acked
    assert len(bridge.games["t1"].session.journal.records) == 1 and b.acks() == [1]
    assert {"c": "ping"} in b.sent  # the bridge asks for the resend
    b.feed(start)
    recs = bridge.games["t1"].session.journal.records
    assert [r["s"] for r in recs] == [1, 2, 3] and b.acks()[-1] == 3
    assert bridge.scoreboard("t1")["score"]["current"]["provisional_twenties"][0]["side"] == "Ana"


def test_a_resent_request_is_entered_once_even_after_a_restart(tmp_path: Path) -> None:
    """QoS 1 may deliver a request twice: its id is journaled, and the second copy is answered, not entered."""
    bridge, _ = make(tmp_path, boards=("t1",))
    req = json.dumps({"id": "tap-1", "line": "shot zone"}).encode()
    first = bridge.mqtt_input("t1", req)
    again = bridge.mqtt_input("t1", req)
    assert first["ok"] and again["ok"] and again["entry"] == first["entry"] and "already entered" in again["message"]
    bridge.close()
    restarted, _ = make(tmp_path)
    third = restarted.mqtt_input("t1", req)
    assert third["entry"] == first["entry"] and len(restarted.game("t1").session.journal.records) == 1
    other = restarted.mqtt_input("t1", json.dumps({"id": 1, "line": "hit"}).encode())
    assert other["ok"] and other["entry"] == 2  # an int id is another id than the string "1"


def test_board_ids_from_topics_never_name_a_folder_outside_the_journals(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path)
    for bad in ("..", ".", "a/b", "x" * 40, "bridge"):
        res = bridge.mqtt_input(bad, json.dumps({"line": "hit"}).encode())
        assert not res["ok"] and ("bad board id" in res["message"] or "is reserved" in res["message"])
        bridge.board_state(bad, True)  # a retained status on flickboard/../status
    folders = list((tmp_path / "journals").iterdir()) if (tmp_path / "journals").exists() else []
    assert folders == [] and not list(tmp_path.rglob("*.jsonl")) and bridge.games == {}


def test_a_board_seen_online_is_pinged_and_a_silent_serial_board_goes_offline(tmp_path: Path) -> None:
    now = [100.0]
    bus = Bus()
    bridge = Bridge(tmp_path / "j", GameSetup("tournament-2019", ("Ana", "Ben")), None, bus, clock=lambda: now[0])
    sent: list[tuple[str, bytes]] = []
    bridge.mqtt_send = lambda board, payload: sent.append((board, payload))
    bridge.board_state("m1", True)  # its retained status: it may have sent events before we subscribed
    assert sent == [("m1", b'{"c":"ping"}')]
    b = Board(bridge, "s1")
    b.hello()
    assert bridge.scoreboard("s1")["board_link"]["online"] is True
    now[0] += 30
    bridge.tick()
    assert bridge.scoreboard("s1")["board_link"]["online"] is True
    now[0] += 10  # more than 35 s without a line, heartbeats included
    bridge.tick()
    assert bus.last("flickboard/s1/scoreboard")["board_link"]["online"] is False
    b.ev("shot_start", "baseline", q=1, seg=1)  # it speaks again
    assert bus.last("flickboard/s1/scoreboard")["board_link"]["online"] is True


def test_a_wifi_board_online_before_its_journal_exists_is_online(tmp_path: Path) -> None:
    """A Wi-Fi board's retained status comes before its first message, when the bridge has no journal for it yet: the
    status opens nothing, but it is kept, so the board's first message opens its game as online (the scoreboard's
    `board_link.online` is what displays show as the board's connectivity). Only the latest status counts, and a
    flood of statuses of boards that never speak keeps a bounded memory."""
    bridge, bus = make(tmp_path)
    bridge.mqtt_send = lambda board, payload: None
    bridge.board_state("w1", False)
    bridge.board_state("w1", True)  # the board's status, retained on the broker, heard before any message
    assert bridge.games == {} and not (tmp_path / "journals").exists()  # a status alone opens nothing
    enc = proto.Encoder("w1", 3, 0)
    enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power")
    bridge.mqtt_payload("w1", enc.last_json.encode())  # the MQTT body: the bare payload
    link = bus.last("flickboard/w1/scoreboard")["board_link"]
    assert (link["online"], link["via"]) == (True, "mqtt")
    bridge.board_state("w2", True)
    bridge.board_state("w2", False)  # it went away before it spoke: its last will
    assert bridge.submit("w2", "shot zone").accepted  # a person opens its game by hand
    assert bus.last("flickboard/w2/scoreboard")["board_link"]["online"] is False
    for n in range(5000):
        bridge.board_state(f"x{n}", True)
    assert len(bridge.heard) <= 1024


def test_tick_pings_a_board_whose_events_are_missing(tmp_path: Path) -> None:
    now = [0.0]
    bridge = Bridge(tmp_path / "j", GameSetup("tournament-2019", ("Ana", "Ben")), None, Bus(), clock=lambda: now[0])
    b = Board(bridge)
    b.hello()
    b.enc.event("pass", "hole", 5, {"dur_us": 900})  # seq 2 lost on the wire
    b.feed(b.enc.heartbeat(6, 1, 2, 0, 0, 0, None))  # the heartbeat's high-water mark says 2 exists
    pings = lambda: sum(1 for c in b.sent if c["c"] == "ping")  # noqa: E731
    first = pings()
    now[0] += 5
    bridge.tick()
    assert pings() == first + 1
    bridge.tick()  # not again at once
    assert pings() == first + 1


def test_a_declaration_is_used_up_by_a_shot_entered_by_hand(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path)
    assert bridge.submit("t1", "shot zone").accepted
    assert bridge.submit("t1", "declare").accepted
    assert bridge.submit("t1", "shot Ben call in").accepted
    assert not bridge.scoreboard("t1")["declared"]


def test_a_reboot_journals_what_arrived_after_a_hole_and_each_hole_as_lost(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path)
    b = Board(bridge)
    b.hello()
    b.enc.event("shot_start", "baseline", 5, {"q": 1, "seg": 1})  # seq 2: lost
    b.ev("pass", "ditch1", dur_us=900)  # seq 3: arrives, held behind 2
    b.enc.event("pass", "hole", 7, {"dur_us": 900})  # seq 4: lost
    b.ev("pass", "ditch1", dur_us=900)  # seq 5: held
    assert len(bridge.games["t1"].session.journal.records) == 1
    b.enc = proto.Encoder("t1", 8, 0)  # the board restarts before resending anything
    b.hello()
    recs = bridge.games["t1"].session.journal.records
    got = [(r["bt"], r["m"], r["s"], r["f"].get("first"), r["f"].get("last")) for r in recs]
    assert got == [
        (7, "hello", 1, None, None),
        (7, "gap", 2, 2, 2),
        (7, "pass", 3, None, None),
        (7, "gap", 4, 4, 4),
        (7, "pass", 5, None, None),
        (8, "hello", 1, None, None),
    ]
    assert bridge.scoreboard("t1")["needs_review"]


def test_a_hole_nobody_fills_is_recorded_lost_after_a_while(tmp_path: Path) -> None:
    """A board whose early events were acked by another host never resends them: the bridge pings, waits
    EARLY_WAIT, then records the hole as lost (a review) rather than holding the game forever."""
    now = [0.0]
    bridge = Bridge(tmp_path / "j", GameSetup("tournament-2019", ("Ana", "Ben")), None, Bus(), clock=lambda: now[0])
    b = Board(bridge)
    b.enc = proto.Encoder("t1", 7, 40)  # seqs 1..40 went to another bridge
    b.ev("shot_start", "baseline", q=1, seg=1)
    b.ev("pass", "hole", dur_us=900)
    assert len(bridge.games["t1"].session.journal.records) == 0
    now[0] += 5
    bridge.tick()
    assert len(bridge.games["t1"].session.journal.records) == 0  # still hoping for the resend
    now[0] += 6
    bridge.tick()
    recs = bridge.games["t1"].session.journal.records
    assert [(r["m"], r["s"]) for r in recs] == [("gap", 42), ("shot_start", 41), ("pass", 42)]  # a gap: s = high water
    assert recs[0]["f"]["first"] == 1 and recs[0]["f"]["last"] == 40 and b.acks()[-1] == 42
    doc = bridge.scoreboard("t1")
    assert doc["needs_review"] and "lost events 1..40" in doc["review"][0]["text"]


def test_the_silence_limit_follows_the_boards_heartbeat(tmp_path: Path) -> None:
    now = [0.0]
    bridge = Bridge(tmp_path / "j", GameSetup("tournament-2019", ("Ana", "Ben")), None, Bus(), clock=lambda: now[0])
    b = Board(bridge)
    b.hello()
    for _ in range(2):  # a board configured for a heartbeat every 60 s
        b.feed(b.enc.heartbeat(0, 1, 2, 0, 0, 0, None))
        now[0] += 60
    bridge.tick()
    assert bridge.scoreboard("t1")["board_link"]["online"] is True  # 60 s silent, but that is its rhythm
    now[0] += 160
    bridge.tick()
    assert bridge.scoreboard("t1")["board_link"]["online"] is False


def test_a_torn_journal_is_resumed_and_said(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bridge, _ = make(tmp_path)
    assert bridge.submit("t1", "shot zone").accepted
    path = bridge.games["t1"].session.journal.path
    bridge.close()
    with open(path, "ab") as f:
        f.write(b'{"n":2,"src":"manual","in":"hi')  # the bridge died while writing an entry
    again, _ = make(tmp_path)
    with caplog.at_level("WARNING"):
        assert again.game("t1").session.state.game is not None
    assert "incomplete" in caplog.text and any(e["code"] == "torn" for e in again.health()["recent_errors"])


def test_a_board_on_the_broker_but_not_on_the_list_is_flagged_once(tmp_path: Path) -> None:
    """Issue 7: the bridge takes events only from the boards of its list, and flags any other it sees."""
    bridge, _ = make(tmp_path, boards=("t1",))
    bridge.unlisted_board("table-9", True)
    bridge.unlisted_board("table-9", True)  # a retained status seen again (a reconnect): said once
    health = bridge.health()
    assert list(health["unlisted_boards"]) == ["table-9"]
    flagged = [e for e in health["recent_errors"] if "table-9" in e["reason"]]
    assert len(flagged) == 1 and flagged[0]["code"] == "board" and "not in this bridge's list" in flagged[0]["reason"]
    assert health["protocol"]["counters"]["errors"]["board"] == 1
    assert "table-9" not in bridge.games and not (tmp_path / "journals" / "table-9").exists()
    bridge.unlisted_board("table-9", False)
    assert bridge.health()["unlisted_boards"] == {}


def test_a_batch_is_made_durable_once_then_acked_and_published_once_per_board(tmp_path: Path) -> None:
    """Group commit: what arrives together is journaled together (one fsync), and only then acked - one ack and
    one scoreboard per board, however many events - with every scoring moment kept, in order."""
    bridge, bus = make(tmp_path)
    a, b = Board(bridge, "ta"), Board(bridge, "tb")
    for board in (a, b):
        board.hello()
    bus.msgs.clear()
    with bridge.batch():
        for board in (a, b):
            board.ev("shot_start", "baseline", q=1, seg=1)
            board.ev("pass", "hole", dur_us=900)
        assert a.acks() == [1] and b.acks() == [1], "nothing of the batch is acked before it is durable"
        assert bus.all("flickboard/ta/scoreboard") == []
        for board in ("ta", "tb"):  # written already: folded, on the file, not yet synced
            assert bridge.games[board].session.journal.count == 3
    assert a.acks() == [1, 3] and b.acks() == [1, 3], "one cumulative ack per board"
    assert len(bus.all("flickboard/ta/scoreboard")) == len(bus.all("flickboard/tb/scoreboard")) == 1
    twenties = [m for m in bus.all("flickboard/ta/events") if m["type"] == "twenty"]
    assert len(twenties) == 1 and bus.last("flickboard/ta/scoreboard")["score"]["current"]["twenties"] == [1, 0]
    for board in ("ta", "tb"):
        recs = journal.read(bridge.games[board].session.journal.path).records
        assert [r["s"] for r in recs] == [1, 2, 3]


def test_a_batch_that_cannot_be_synced_is_not_acked_and_the_resend_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk refuses the batch's fsync: nothing of it is acked, the journal is cut back to its last durable
    entry, the error is shown, and the board's resend is journaled once, as if the batch had never come."""
    bridge, _ = make(tmp_path)
    a = Board(bridge, "ta")
    a.hello()
    first = a.ev("shot_start", "baseline", q=1, seg=1)
    path = bridge.games["ta"].session.journal.path
    real_fsync = journal.os.fsync

    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error (injected)")

    with bridge.batch():
        second = a.ev("pass", "hole", dur_us=900)
        third = a.ev("shot_start", "baseline", q=3, seg=10)
        monkeypatch.setattr(journal.os, "fsync", failing_fsync)
    monkeypatch.setattr(journal.os, "fsync", real_fsync)
    assert a.acks() == [1, 2], "the failed batch is not acked"
    assert [r["s"] for r in journal.read(path).records] == [1, 2], "cut back to the last durable entry"
    health = bridge.health()
    assert any(e["code"] == "journal" and "entries 3 to 4" in e["reason"] for e in health["recent_errors"])
    for line in (first, second, third):  # the board resends everything not acked (and the first, once more)
        a.feed(line)
    recs = journal.read(path).records
    assert [r["s"] for r in recs] == [1, 2, 3, 4], "each event journaled once"
    assert a.acks()[-1] == 4
    assert bridge.scoreboard("ta")["score"]["current"]["twenties"] == [1, 0]


def test_a_send_that_fails_at_the_end_of_a_batch_stops_nothing_else(tmp_path: Path) -> None:
    """One board's link breaks just as the batch's acks go out: the others are still acked and published, and
    the broken board's events stay journaled (it resends; they are duplicates then)."""
    bridge, bus = make(tmp_path)
    a, b = Board(bridge, "ta"), Board(bridge, "tb")
    for board in (a, b):
        board.hello()

    def broken(line: str) -> None:
        raise RuntimeError("the port went away (injected)")

    with bridge.batch():
        a.ev("shot_start", "baseline", q=1, seg=1)
        b.ev("shot_start", "baseline", q=1, seg=1)
        bridge.games["ta"].send = lambda cmd: broken("")
    assert b.acks() == [1, 2] and a.acks() == [1]
    assert bus.last("flickboard/ta/scoreboard")["entries"] == 2 and bus.last("flickboard/tb/scoreboard")["entries"] == 2
    assert [r["s"] for r in journal.read(bridge.games["ta"].session.journal.path).records] == [1, 2]


def test_an_entry_for_a_board_nobody_knows_is_refused_not_made(tmp_path: Path) -> None:
    """Issue 20, 6: a mistyped board id in `flickboard enter` opened a phantom board (a journal folder, a place on
    every screen, retained documents). Without a list of boards, an entry is taken only for a board this bridge
    knows (its game, its journal); a new match (`new`) admits one on purpose. The refusal names the near miss."""
    bridge, bus = make(tmp_path)
    first = bridge.mqtt_input("table-1", json.dumps({"id": "n", "new": {"players": ["Ana", "Ben"]}}).encode())
    assert first["ok"]
    typo = bridge.mqtt_input("tabel-1", json.dumps({"id": "e1", "line": "shot zone"}).encode())
    assert not typo["ok"] and typo["entry"] is None
    assert (
        typo["message"] == "no game on board 'tabel-1': start one with a new match, or check the board id; "
        "did you mean 'table-1'?"
    )
    assert not (tmp_path / "journals" / "tabel-1").exists() and "tabel-1" not in bridge.games
    assert not [t for t, *_ in bus.msgs if "tabel-1" in t and not t.endswith("/result")]
    assert bridge.mqtt_input("table-1", json.dumps({"id": "e2", "line": "shot zone"}).encode())["ok"]
    bridge.close()
    again, _ = make(tmp_path)  # after a restart the board is known by its journal
    assert again.mqtt_input("table-1", json.dumps({"id": "e3", "line": "hit"}).encode())["entry"] == 2
    again.close()
    listed, _ = make(tmp_path / "listed", boards=("t9",))  # a listed board is admitted by its list
    assert listed.mqtt_input("t9", json.dumps({"id": "e4", "line": "shot zone"}).encode())["ok"]


def test_a_new_request_that_did_not_see_the_game_under_way_opens_nothing(tmp_path: Path) -> None:
    """`replaces` is the journal the sender saw on the board's scoreboard (the tournament hall sends it): a game under
    way in another journal is one the request did not see, so nothing is opened over it; the answer says so (`stale`)
    and the refusal is counted and listed. A `replaces` naming the board's journal opens the match, and a `new`
    without `replaces` (a phone, `flickboard enter`) replaces the game as before."""
    bridge, bus = make(tmp_path, boards=("t1",))
    seen = bridge.scoreboard("t1")["journal"]  # what the hall's copy shows
    casual = {"rules": "tournament-2019", "players": ["Cy", "Di"], "match": "games:1"}
    assert bridge.mqtt_input("t1", json.dumps({"id": "c", "new": casual}).encode())["ok"]
    game = bridge.games["t1"].session.journal.path
    assert bridge.submit("t1", "shot").accepted  # under way: a shot played
    published = len(bus.all("flickboard/t1/scoreboard"))

    def new(rid: str, **more: Any) -> dict[str, Any]:
        body = {"id": rid, "new": {"rules": "tournament-2019", "players": ["Ana", "Ben"], **more}}
        return bridge.mqtt_input("t1", json.dumps(body).encode())

    for rid, replaces in (("h1", seen), ("h2", None)):
        stale = new(rid, replaces=replaces)
        said = f"board t1 has a game in progress that this request did not see: Cy 0 – Di 0 (journal {game})"
        assert stale == {"id": rid, "ok": False, "entry": None, "message": f"{said}; nothing was opened",
                         "stale": True, "board": "t1"}  # fmt: skip
        assert bus.last("flickboard/t1/result") == stale
    assert bridge.games["t1"].session.journal.path == game and bridge.games["t1"].session.journal.count == 1
    assert len(list((tmp_path / "journals" / "t1").glob("*.jsonl"))) == 2  # nothing opened: the first and the game
    assert bridge.inputs == {"accepted": 1, "refused": 0, "invalid": 0, "stale": 2}
    assert [e["code"] for e in bridge.recent] == ["stale", "stale"]
    assert len(bus.all("flickboard/t1/scoreboard")) == published + 2  # the sender's copy is given the game again
    assert bridge.health()["inputs"]["stale"] == 2
    # The journal the sender saw is the board's: the match opens over it.
    opened = new("h3", replaces=game)
    assert opened["ok"] and opened["entry"] == 0 and "stale" not in opened
    assert bridge.games["t1"].session.journal.path not in (game, seen)
    # Not under way (only set up): nothing to lose, the match opens whatever the sender saw.
    assert new("h4", replaces=seen)["ok"]
    # Without `replaces`, a `new` replaces a game under way as it always has.
    assert bridge.submit("t1", "shot").accepted
    under = bridge.games["t1"].session.journal.path
    assert new("h5")["ok"] and bridge.games["t1"].session.journal.path != under
    assert bridge.inputs["stale"] == 2


def test_a_new_request_that_saw_the_game_before_it_went_on_opens_nothing(tmp_path: Path) -> None:
    """`replaces_entries`: the sender saw the board's journal with that many entries, a game only set up; a shot
    played there since (in the same journal) makes it a game under way the request did not see, so nothing is
    opened (`stale`). Seen as it is now, the match opens."""
    bridge, _ = make(tmp_path, boards=("t1",))
    casual = {"rules": "tournament-2019", "players": ["Cy", "Di"], "match": "games:1"}
    assert bridge.mqtt_input("t1", json.dumps({"id": "c", "new": casual}).encode())["ok"]
    seen = bridge.scoreboard("t1")  # what the hall's copy shows: the game set up, nothing played
    assert bridge.submit("t1", "shot").accepted  # then a shot, before the request arrives
    game = bridge.games["t1"].session.journal.path

    def new(rid: str, entries: int) -> dict[str, Any]:
        body = {"id": rid, "new": {"players": ["Ana", "Ben"], "replaces": game, "replaces_entries": entries}}
        return bridge.mqtt_input("t1", json.dumps(body).encode())

    stale = new("h1", seen["entries"])
    assert stale["ok"] is False and stale["stale"] is True and "nothing was opened" in stale["message"], stale
    assert bridge.games["t1"].session.journal.path == game and bridge.inputs["stale"] == 1
    opened = new("h2", bridge.scoreboard("t1")["entries"])  # the game as it is now: the sender means to replace it
    assert opened["ok"] is True and bridge.games["t1"].session.journal.path != game
    bad = bridge.mqtt_input("t1", json.dumps({"id": 3, "new": {"players": ["A", "B"], "replaces_entries": 2}}).encode())
    assert bad["ok"] is False and '"replaces_entries" is the count of entries' in bad["message"], bad


def test_a_new_requests_replaces_is_a_journal_path_or_null(tmp_path: Path) -> None:
    bridge, _ = make(tmp_path, boards=("t1",))
    first = bridge.games["t1"].session.journal.path
    for bad in (5, "", "x" * 301, ["a"]):
        body = {"id": 1, "new": {"players": ["Ana", "Ben"], "replaces": bad}}
        res = bridge.mqtt_input("t1", json.dumps(body).encode())
        assert not res["ok"] and res["entry"] is None and "stale" not in res, res
        assert res["message"] == (
            '"new": "replaces" must be the journal path the board\'s scoreboard showed (a string of at most 300 '
            "characters), or null when it showed none"
        )
    assert bridge.inputs == {"accepted": 0, "refused": 0, "invalid": 4, "stale": 0}
    assert [p.name for p in tmp_path.rglob("*.jsonl")] == [Path(first).name]  # nothing opened
    ok = {"id": 2, "new": {"players": ["Ana", "Ben"], "replaces": "x" * 300}}  # any path: the bridge compares
    assert bridge.mqtt_input("t1", json.dumps(ok).encode())["ok"]
