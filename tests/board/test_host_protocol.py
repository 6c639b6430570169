"""Host side of protocol v1 (host/board/protocol.py): the shared vectors decode and encode byte-exact, every bad line
gets its ProtocolError code, console noise is told apart, the Tracker de-duplicates / reports gaps / reboots and
acks only what is durable, and the firmware's own encoder (run under CPython) round-trips through the decoder."""

import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flickboard.board.protocol import (
    ERROR_CODES,
    MAX_BOARD_LINE,
    BoardMessage,
    ProtocolError,
    Tracker,
    ack_command,
    command_payload,
    decode_line,
    decode_payload,
    encode_command,
)

ROOT = Path(__file__).resolve().parents[2]
from fb import proto  # noqa: E402  (the board's encoder/decoder, run under CPython)

VECTORS = ROOT / "tests" / "vectors"
BOARD = json.loads((VECTORS / "board_messages.json").read_text())
HOST = json.loads((VECTORS / "host_commands.json").read_text())
ENVELOPE = ("v", "b", "bt", "s", "t", "m")
RELIABLE = {"hello", "pass", "stuck", "clear", "shot_start", "baseline_rest", "count", "chatter", "fault"}


def frame(payload: str) -> str:
    return f"FB1|{payload}|{zlib.crc32(payload.encode('utf-8', 'surrogateescape')):08x}"


def envelope(**over: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "v": 1,
        "b": "fb-01",
        "bt": 7,
        "s": 2,
        "t": 4000123,
        "m": "pass",
        "dur_us": 1500,
        "n": "hole",
    }
    obj.update(over)
    return {k: v for k, v in obj.items() if v is not DROP}


DROP = object()


def line_of(**over: Any) -> str:
    return frame(json.dumps(envelope(**over), separators=(",", ":")))


# ---- vectors ------------------------------------------------------------------------------------------------


def check_vector(msg: BoardMessage, v: dict[str, Any]) -> None:
    want = json.loads(v["json"])
    assert (msg.board, msg.boot, msg.seq, msg.t_us, msg.kind) == (
        want["b"],
        want["bt"],
        want["s"],
        want["t"],
        want["m"],
    )
    assert msg.fields == {k: x for k, x in want.items() if k not in ENVELOPE}
    assert msg.reliable == (want["m"] in RELIABLE)
    assert msg.raw == v["json"]
    if msg.reliable:
        assert msg.seq == v["seq_after"]  # a reliable message carries its own, new seq
    else:
        assert msg.seq == v["seq_before"] == v["seq_after"]  # the high-water mark


@pytest.mark.parametrize("v", BOARD["vectors"], ids=lambda v: v["name"])
def test_board_vector_serial_line_decodes(v: dict[str, Any]) -> None:
    check_vector(decode_line(v["line"]), v)
    check_vector(decode_line(v["line"] + "\r\n"), v)
    check_vector(decode_line((v["line"] + "\n").encode()), v)


@pytest.mark.parametrize("v", BOARD["vectors"], ids=lambda v: v["name"])
def test_board_vector_mqtt_payload_decodes(v: dict[str, Any]) -> None:
    check_vector(decode_payload(v["json"].encode(), BOARD["board"]), v)
    check_vector(decode_payload(v["json"].encode(), None), v)


def test_board_vectors_cover_every_kind() -> None:
    kinds = {json.loads(v["json"])["m"] for v in BOARD["vectors"]}
    assert kinds == RELIABLE | {"gap", "heartbeat", "reply"}


# Vectors the host cannot produce on purpose: no CRC (typed by a person), an unknown extra key.
NOT_PRODUCED = {"ack-no-crc", "extra-fields-ignored"}


def vector_command(v: dict[str, Any]) -> dict[str, Any]:
    cmd = dict(v["cmd"])
    if v["line"].startswith('FB1|{"v":1,'):
        cmd = {"v": 1, **cmd}
    return cmd


@pytest.mark.parametrize("v", [v for v in HOST["valid"] if v["name"] not in NOT_PRODUCED], ids=lambda v: v["name"])
def test_host_command_vector_encodes_byte_exact(v: dict[str, Any]) -> None:
    want = v["line"].removesuffix("\r")
    cmd = vector_command(v)
    assert encode_command(cmd) == want + "\n"
    assert command_payload(cmd) == want[4:].rsplit("|", 1)[0].encode()


def test_ack_vector_payload_and_helper() -> None:
    (no_crc,) = [v for v in HOST["valid"] if v["name"] == "ack-no-crc"]
    assert command_payload(no_crc["cmd"]).decode() == no_crc["line"][4:]
    assert encode_command(ack_command(7, 41)) == next(v for v in HOST["valid"] if v["name"] == "ack")["line"] + "\n"


COMMANDS = [
    {"c": "ack", "bt": 7, "s": 0},
    {"c": "ack", "bt": 2**31, "s": 12345, "id": "a"},
    {"c": "ping"},
    {"c": "ping", "id": 0},
    {"c": "status", "id": "s-1"},
    {"c": "selftest", "id": 2**31 - 1},
    {"c": "config_get", "id": 4},
    {"c": "config_get", "id": 5, "k": "wifi.ssid"},
    {"c": "config_set", "id": 6, "k": "mqtt.user", "val": None},
    {"c": "config_set", "id": 7, "k": "wifi.ssid", "val": 'caf\u00e9 "\\ \t\U0001f600'},
    {"c": "config_set", "id": 8, "k": "mqtt", "val": {"tls": True, "host": "10.0.0.2", "port": 1883}},
    {"c": "config_set", "id": 9, "k": "sensors.strip", "val": {"mux": {"select": [1, 2, 3, 4]}}},
    {"c": "reboot", "id": 10},
]


@pytest.mark.parametrize("cmd", COMMANDS, ids=lambda c: f"{c['c']}-{c.get('id')}")
def test_encoded_commands_decode_on_the_firmware(cmd: dict[str, Any]) -> None:
    line = encode_command(cmd)
    assert line.endswith("\n") and line.count("\n") == 1 and line.isascii()
    got, bad = proto.decode(line[:-1])
    assert bad is None
    want = {"id": None, **cmd}
    if cmd["c"] == "config_get":
        want.setdefault("k", None)
    assert got == want
    # the MQTT form: the board frames the bare payload itself (fb.app._mqtt_command)
    assert proto.decode(proto.frame(command_payload(cmd).decode())) == (got, None)


@pytest.mark.parametrize(
    "cmd, words",
    [
        ({"c": "selfdestruct"}, "unknown command"),
        ({"id": 3}, "unknown command"),
        ({"c": "ack", "bt": 7}, "ack needs s"),
        ({"c": "ack", "bt": True, "s": 1}, "ack needs bt"),
        ({"c": "ack", "bt": 7, "s": -1}, "ack needs s"),
        ({"c": "ping", "id": -1}, "id must be"),
        ({"c": "ping", "id": "x" * 33}, "id must be"),
        ({"c": "ping", "v": 2}, "v must be 1"),
        ({"c": "ping", "later": 1}, "unexpected fields"),
        ({"c": "config_get", "k": 3}, "dotted key"),
        ({"c": "config_set", "val": 3}, "needs k"),
        ({"c": "config_set", "k": "heartbeat_ms"}, "needs val"),
        ({"c": "config_set", "k": "heartbeat_ms", "val": 1.5}, "floats"),
        ({"c": "config_set", "k": "wifi.ssid", "val": "x" * 500}, "longer than 512"),
    ],
)
def test_encode_command_refuses_what_the_board_would_reject(cmd: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        encode_command(cmd)
    with pytest.raises(ValueError, match=words):
        command_payload(cmd)


# ---- errors and noise ---------------------------------------------------------------------------------------

NOISE = [
    ">>> ",
    ">>> print('hi')",
    "MicroPython v1.23.0 on 2024-06-02; Raspberry Pi Pico W with RP2040",
    "MicroPython v1.22.2 on 2024-02-22; Generic ESP32 module with ESP32",
    'Type "help()" for more information.',
    "Traceback (most recent call last):",
    '  File "main.py", line 12, in <module>',
    "KeyboardInterrupt: ",
    "",
    "raw REPL; CTRL-B to exit",
    "OK\x04\x04>",
    b"\xff\xfe\x00 not text",
    "x" * 5000,  # a long print is still noise, not an oversize protocol line
]


@pytest.mark.parametrize("line", NOISE, ids=range(len(NOISE)))
def test_console_noise_is_noise_not_an_error(line: str | bytes) -> None:
    with pytest.raises(ProtocolError) as e:
        decode_line(line)
    assert e.value.code == "noise" and e.value.is_noise
    t = Tracker()
    t.count_error(e.value)
    assert t.counters.noise == 1 and t.counters.errors == {}


GOOD = line_of()
BAD_LINES = [
    ("half-line", GOOD[:40], "frame", "half or garbled"),
    ("no-crc", GOOD.rsplit("|", 1)[0], "frame", "crc32"),
    ("short-crc", GOOD[:-2], "frame", "crc32"),
    ("uppercase-crc", GOOD[:-8] + GOOD[-8:].upper(), "frame", "crc32"),
    ("two-halves", GOOD[:30] + GOOD, "crc", "CRC mismatch"),
    ("bad-crc", GOOD[:-8] + "00000000", "crc", "CRC mismatch"),
    ("flipped-byte", GOOD.replace("hole", "hold"), "crc", "CRC mismatch"),
    ("not-json", frame("{v:1}"), "json", "not valid JSON"),
    ("empty", frame(""), "json", "not valid JSON"),
    ("nan", frame('{"v":1,"b":"fb-01","bt":7,"s":2,"t":1,"m":"pass","dur_us":NaN,"n":"hole"}'), "json", "JSON"),
    ("not-utf8", "FB1|" + "\udcff" + "|" + "0" * 8, "encoding", "not UTF-8 text (byte 0xff at 4)"),
    ("not-utf8-crc-right", frame('{"n":"h\udcfele"}'), "encoding", "not UTF-8"),
    ("oversize", frame('{"x":"' + "y" * MAX_BOARD_LINE + '"}'), "oversize", "longer than 4096"),
    ("version-field", line_of(v=2), "version", "version 2"),
    ("version-bool", line_of(v=True), "version", "version True"),
    ("version-prefix", "FB2|{}|00000000", "version", "version 2"),
    ("not-object", frame("[1,2]"), "schema", "JSON object"),
    ("no-v", line_of(v=DROP), "schema", '"v"'),
    ("no-board", line_of(b=DROP), "schema", '"b"'),
    ("bad-board-id", line_of(b="fb 01"), "schema", "board id"),
    ("boot-string", line_of(bt="7"), "schema", '"bt" must be int'),
    ("seq-bool", line_of(s=True), "schema", '"s" must be int'),
    ("negative-t", line_of(t=-1), "schema", '"t" must be >= 0'),
    ("kind-int", line_of(m=3), "schema", '"m" must be str'),
    ("reliable-seq-0", line_of(s=0), "schema", "s must be >= 1"),
    ("float", line_of(dur_us=1.5), "schema", "floats"),
    ("float-int-valued", line_of(dur_us=1.0), "schema", "floats"),
    ("unknown-kind", line_of(m="selfdestruct"), "unknown", "selfdestruct"),
    ("error-kind", line_of(m="error"), "unknown", "kind 'error'"),
    ("pass-no-dur", line_of(dur_us=DROP), "schema", 'pass: missing field "dur_us"'),
    ("pass-no-sensor", line_of(n=DROP), "schema", '"n"'),
    ("pass-dur-string", line_of(dur_us="1500"), "schema", '"dur_us" must be int'),
    ("shot-no-q", line_of(m="shot_start", dur_us=DROP, seg=3), "schema", '"q"'),
    ("hello-sn-not-list", line_of(m="hello", s=1, fw="0.1", prof="p", rst="power", sn={}), "schema", '"sn"'),
    (
        "hello-hall-no-count",
        line_of(m="hello", s=1, fw="0", prof="p", rst="x", sn=[{"n": "a", "k": "hall"}]),
        "schema",
        '"c"',
    ),
    ("fault-no-msg", line_of(m="fault", code="wifi"), "schema", '"msg"'),
    ("gap-inconsistent", line_of(m="gap", s=60, first=40, last=57, lost=3), "schema", "lost=3"),
    ("gap-above-hw", line_of(m="gap", s=50, first=40, last=57, lost=18), "schema", "high-water"),
    ("gap-backwards", line_of(m="gap", s=60, first=40, last=30, lost=-9), "schema", '"last" must be >= 40'),
    ("heartbeat-no-rssi", line_of(m="heartbeat", up=1, heap=2, q=0, drop=0, rc=0), "schema", '"rssi"'),
    ("reply-no-ok", line_of(m="reply", c="ping", id=1), "schema", '"ok"'),
    ("reply-error-no-err", line_of(m="reply", c="ping", id=1, ok=False, msg="x"), "schema", '"err"'),
    ("reply-d-not-object", line_of(m="reply", c="ping", id=1, ok=True, d=[1]), "schema", '"d"'),
    ("echo", encode_command({"c": "ping", "id": 1}), "echo", "REPL"),
]


@pytest.mark.parametrize("name, line, code, words", BAD_LINES, ids=[b[0] for b in BAD_LINES])
def test_protocol_error_codes(name: str, line: str, code: str, words: str) -> None:
    with pytest.raises(ProtocolError) as e:
        decode_line(line)
    err = e.value
    assert err.code == code, err.reason
    assert words in err.reason
    assert "\n" not in err.reason and len(err.reason) < 200
    assert not err.is_noise
    assert str(err) == f"{code}: {err.reason}"


def test_every_error_code_is_exercised() -> None:
    assert {b[2] for b in BAD_LINES} | {"noise", "board"} == set(ERROR_CODES)


def test_payload_board_must_match_the_topic() -> None:
    payload = json.dumps(envelope(), separators=(",", ":")).encode()
    assert decode_payload(payload, "fb-01").board == "fb-01"
    with pytest.raises(ProtocolError) as e:
        decode_payload(payload, "fb-02")
    assert e.value.code == "board" and "'fb-01'" in e.value.reason and "'fb-02'" in e.value.reason


@pytest.mark.parametrize(
    "payload, code",
    [
        (b"\xff{}", "encoding"),
        (b"online", "json"),
        (GOOD.encode(), "json"),  # a serial frame is not an MQTT payload
        (b'{"v":1}', "schema"),
        (b"{" + b" " * MAX_BOARD_LINE + b"}", "oversize"),
    ],
)
def test_payload_errors(payload: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as e:
        decode_payload(payload, "fb-01")
    assert e.value.code == code


def test_extra_keys_of_a_known_kind_are_kept() -> None:
    msg = decode_line(line_of(m="heartbeat", s=3, up=1, heap=2, q=0, drop=0, rc=0, rssi=None, irq_max=7))
    assert msg.fields["irq_max"] == 7 and not msg.reliable


def test_error_counters_by_code() -> None:
    t = Tracker()
    for line in (">>> ", GOOD[:-8] + "00000000", GOOD[:-8] + "00000000", frame("{")):
        try:
            decode_line(line)
        except ProtocolError as e:
            t.count_error(e)
    assert t.counters.noise == 1
    assert t.counters.errors == {"crc": 2, "json": 1}
    assert t.status()["counters"]["errors"] == {"crc": 2, "json": 1}


# ---- Tracker ------------------------------------------------------------------------------------------------


def ev(seq: int, board: str = "fb-01", boot: int = 7, kind: str = "pass") -> BoardMessage:
    enc = proto.Encoder(board, boot, seq - 1)
    if kind == "hello":
        return decode_line(enc.hello(100, "0.1.0", "pico_w", [], "power"))
    return decode_line(enc.event("pass", "hole", 1000 * seq, {"dur_us": 1500}))


def gap(first: int, last: int, hw: int, board: str = "fb-01", boot: int = 7) -> BoardMessage:
    return decode_line(proto.Encoder(board, boot, hw).gap(first, last, 5))


def heartbeat(hw: int, board: str = "fb-01", boot: int = 7) -> BoardMessage:
    return decode_line(proto.Encoder(board, boot, hw).heartbeat(5, 1, 2, 0, 0, 0, None))


def take(t: Tracker, msg: BoardMessage) -> str:
    """accept + (if new) processed, as the bridge does once the journal write is durable."""
    v = t.accept(msg)
    if v.new:
        t.processed(msg)
    return v.status


def test_tracker_in_order() -> None:
    t = Tracker()
    assert t.ack_for("fb-01") is None
    for q in range(1, 6):
        v = t.accept(ev(q, kind="hello" if q == 1 else "pass"))
        assert v.new and not v.missing and not v.should_ping and v.reboot is None and not v.notes
        t.processed(ev(q))
        assert t.ack_for("fb-01") == (7, q)
    assert t.counters.new == 5 and t.counters.duplicates == 0 and t.missing("fb-01") == []


def test_tracker_duplicates_dropped_and_counted() -> None:
    t = Tracker()
    assert [take(t, ev(q)) for q in (1, 2, 2, 1, 3, 3)] == ["new", "new", "duplicate", "duplicate", "new", "duplicate"]
    assert t.counters.duplicates == 3
    assert t.ack_for("fb-01") == (7, 3)
    # a resend of something received but not processed yet is a duplicate too (the journal gets it once)
    assert t.accept(ev(4)).new
    assert t.accept(ev(4)).status == "duplicate"
    assert t.ack_for("fb-01") == (7, 3)


def test_tracker_reordered_delivery() -> None:
    t = Tracker()
    assert [take(t, ev(q)) for q in (1, 3, 2, 5, 4)] == ["new"] * 5
    assert t.ack_for("fb-01") == (7, 5)
    assert t.missing("fb-01") == []
    assert t.counters.late == 2


def test_tracker_gap_then_late_arrival_fills_it() -> None:
    t = Tracker()
    take(t, ev(1))
    take(t, ev(2))
    v = t.accept(ev(6))
    assert v.new and v.missing == ((3, 5),) and v.should_ping
    assert "seqs 3-5 missing" in v.notes[0]
    t.processed(ev(6))
    assert t.ack_for("fb-01") == (7, 2)  # never past a hole
    assert t.missing("fb-01") == [(3, 5)]
    v = t.accept(ev(4))
    assert v.new and v.filled and not v.missing and v.should_ping
    t.processed(ev(4))
    assert t.missing("fb-01") == [(3, 3), (5, 5)]
    assert t.ack_for("fb-01") == (7, 2)
    take(t, ev(3))
    assert t.ack_for("fb-01") == (7, 4)
    v = t.accept(ev(5))
    assert v.filled and not v.should_ping
    t.processed(ev(5))
    assert t.ack_for("fb-01") == (7, 6)
    assert t.counters.gaps == 1 and t.counters.missing_seqs == 3 and t.counters.late == 3


def test_tracker_board_gap_message() -> None:
    t = Tracker()
    take(t, ev(1))
    assert take(t, ev(6)) == "new"  # 2..5 missing for now
    v = t.accept(ev(4))  # in flight before the board dropped it: received, not yet durable
    assert v.new
    g = gap(2, 5, hw=6)
    v = t.accept(g)
    assert v.new and v.lost == ((2, 3), (5, 5)) and "seqs 2-3, 5 lost (outbox overflow)" in v.notes[0]
    assert t.missing("fb-01") == [] and not v.should_ping
    assert t.counters.lost_seqs == 3
    assert t.ack_for("fb-01") == (7, 1)  # the loss is not in the journal yet
    t.processed(g)
    assert t.ack_for("fb-01") == (7, 3)  # past the recorded loss, never past unprocessed seq 4
    t.processed(ev(4))
    assert t.ack_for("fb-01") == (7, 6)
    # the gap is re-sent until acked: a duplicate; a widened one adds only the new seqs
    assert t.accept(gap(2, 5, hw=6)).status == "duplicate"
    v = t.accept(gap(2, 8, hw=9))
    assert v.new and v.lost == ((7, 8),)
    t.processed(gap(2, 8, hw=9))
    assert t.ack_for("fb-01") == (7, 8)
    assert t.missing("fb-01") == [(9, 9)]


def test_tracker_seq_reported_lost_that_arrives_late_is_kept() -> None:
    t = Tracker()
    take(t, ev(1))
    take(t, ev(4))
    take(t, gap(2, 3, hw=4))
    v = t.accept(ev(3))
    assert v.new and "arrived after it was reported lost" in v.notes[0]


def test_tracker_reboot() -> None:
    t = Tracker()
    for q in (1, 2, 3):
        take(t, ev(q))
    t.accept(ev(5))  # 4 never came; 5 received but not durable
    t.accept(heartbeat(7))  # the board had assigned up to 7
    v = t.accept(ev(1, boot=8, kind="hello"))
    assert v.new and v.reboot == (7, 8)
    assert v.notes[0] == "board fb-01 rebooted (boot 7 -> 8)"
    assert v.reboot_lost == ((4, 4), (6, 7)) and "seqs 4, 6-7 lost in the reboot" in v.notes[1]
    assert t.ack_for("fb-01") is None  # nothing of boot 8 processed yet: no ack of the old boot either
    t.processed(ev(1, boot=8, kind="hello"))
    assert t.ack_for("fb-01") == (8, 1)
    assert take(t, ev(2, boot=8)) == "new"  # seq 2 again, but of the new boot
    assert t.counters.reboots == 1
    # a new message of the closed boot is taken under its own boot and said: two boots seem alive (issue 19: it
    # used to be dropped as stale, so a forged hello silenced the real board); never a flip back
    v = t.accept(ev(4, boot=7))
    assert v.new and v.conflict == (7, 8) and v.reboot is None and t.boot_of("fb-01") == 8
    assert "two boots of this board seem alive" in v.notes[0] and t.counters.conflicts == 1
    t.processed(ev(4, boot=7))
    assert t.ack_for("fb-01") == (8, 2) and t.ack_for("fb-01", 7) == (7, 4)
    # a resend of what the closed boot sent before is a duplicate (the bridge compares its content)
    v = t.accept(ev(1, boot=7, kind="hello"))
    assert v.status == "duplicate" and v.conflict == (7, 8) and t.boot_of("fb-01") == 8
    # its heartbeat has nothing to journal, but the boot is alive: said too
    v = t.accept(heartbeat(9, boot=7))
    assert v.status == "stale" and v.conflict == (7, 8) and t.counters.conflicts == 2


def test_tracker_ack_only_covers_processed() -> None:
    t = Tracker()
    for q in (1, 2, 3, 4):
        assert t.accept(ev(q)).new
    assert t.ack_for("fb-01") is None
    t.processed(ev(2))
    assert t.ack_for("fb-01") is None
    t.processed(ev(1))
    assert t.ack_for("fb-01") == (7, 2)
    t.processed(ev(4))
    assert t.ack_for("fb-01") == (7, 2)
    t.processed(ev(9))  # never accepted: ignored
    t.processed(ev(3))
    assert t.ack_for("fb-01") == (7, 4)
    t.processed(ev(5))  # not accepted (never received): cannot be acked
    assert t.ack_for("fb-01") == (7, 4)
    assert t.accept(ev(5)).new
    t.processed(ev(5))
    assert t.ack_for("fb-01") == (7, 5)


def test_tracker_boards_are_independent() -> None:
    t = Tracker()
    take(t, ev(1, board="a"))
    take(t, ev(2, board="a"))
    take(t, ev(1, board="b", boot=3))
    assert take(t, ev(1, board="b", boot=3)) == "duplicate"
    v = t.accept(ev(1, board="b", boot=4))
    assert v.reboot == (3, 4)
    assert t.ack_for("a") == (7, 2) and t.ack_for("b") is None and t.ack_for("c") is None
    assert take(t, ev(3, board="a")) == "new"
    assert t.status()["boards"]["a"]["processed"] == 3


def test_tracker_heartbeat_high_water_mark_asks_for_a_ping() -> None:
    t = Tracker()
    take(t, ev(1))
    v = t.accept(heartbeat(1))
    assert v.new and not v.should_ping
    v = t.accept(heartbeat(3))
    assert v.new and v.should_ping and t.missing("fb-01") == [(2, 3)]
    assert t.accept(heartbeat(3)).new  # not de-duplicated: only reliable messages and gaps are
    take(t, ev(2))
    assert not t.accept(ev(3)).should_ping


def test_tracker_restore_from_the_journal() -> None:
    t = Tracker()
    t.restore("fb-01", 7, 41)
    assert t.ack_for("fb-01") == (7, 41)
    assert t.accept(ev(40)).status == "duplicate"
    v = t.accept(ev(42))
    assert v.new and not v.missing


def test_tracker_huge_seqs_stay_cheap() -> None:
    t = Tracker()
    take(t, ev(1))
    v = t.accept(heartbeat(10**12))
    assert v.should_ping and t.missing("fb-01") == [(2, 10**12)]
    v = t.accept(gap(2, 10**12 - 1, hw=10**12))
    assert v.lost == ((2, 10**12 - 1),)
    t.processed(gap(2, 10**12 - 1, hw=10**12))
    assert t.ack_for("fb-01") == (7, 10**12 - 1)


# ---- never anything but ProtocolError -----------------------------------------------------------------------


def decodes_or_protocol_error(data: str | bytes, mqtt: bool = False) -> None:
    try:
        if mqtt:
            msg = decode_payload(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"), "fb-01")
        else:
            msg = decode_line(data)
    except ProtocolError as e:
        assert e.code and e.reason and "\n" not in e.reason
        return
    t = Tracker()
    t.accept(msg)
    t.processed(msg)
    t.ack_for(msg.board)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_only_raise_protocol_error(data: bytes) -> None:
    decodes_or_protocol_error(data)
    decodes_or_protocol_error(b"FB1|" + data)
    decodes_or_protocol_error(data, mqtt=True)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_random_text_only_raises_protocol_error(text: str) -> None:
    decodes_or_protocol_error(text)
    decodes_or_protocol_error(frame(text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    ["v", "b", "bt", "s", "t", "m", "n", "dur_us", "q", "seg", "first", "last", "lost", "ok", "c", "id", "d", "sn"]
)
KIND = st.sampled_from(["pass", "hello", "gap", "heartbeat", "reply", "fault", "count", "shot_start", "nope"])


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(KEYS, JSON | st.integers(-3, 70) | KIND, max_size=12), st.booleans())
def test_random_envelopes_only_raise_protocol_error(obj: dict[str, Any], base: bool) -> None:
    if base:
        obj = {**envelope(), **obj}
    payload = json.dumps(obj, separators=(",", ":"))
    decodes_or_protocol_error(frame(payload))
    decodes_or_protocol_error(payload, mqtt=True)


# ---- byte-exact with the firmware encoder ------------------------------------------------------------------

SENSOR = st.text(min_size=1, max_size=12)
UINT = st.integers(0, 2**40)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(sorted(proto.EVENT_FIELDS)),
    SENSOR,
    UINT,
    UINT,
    UINT,
    st.from_regex(r"[A-Za-z0-9_-]{1,32}", fullmatch=True),
    st.integers(0, 2**31),
)
def test_firmware_events_round_trip(kind: str, sensor: str, t: int, a: int, b: int, board: str, seq: int) -> None:
    enc = proto.Encoder(board, 2**30 + 5, seq)
    names = proto.EVENT_FIELDS[kind]
    fields = dict(zip(names, (a, b), strict=False))
    line = enc.event(kind, sensor, t, fields)
    for msg in (decode_line(line + "\n"), decode_payload(enc.last_json.encode(), board)):
        assert (msg.board, msg.boot, msg.seq, msg.t_us, msg.kind) == (board, 2**30 + 5, seq + 1, t, kind)
        assert msg.fields == {"n": sensor, **fields}
        assert msg.reliable and msg.raw == enc.last_json


def test_firmware_other_messages_round_trip() -> None:
    enc = proto.Encoder("table-3", 12, 0)
    sensors = [{"name": "hole", "kind": "beam"}, {"name": "strip", "kind": "hall", "count": 32}]
    hello = decode_line(enc.hello(1, "0.1.0", "esp32_devkit", sensors, "watchdog"))
    assert hello.kind == "hello" and hello.seq == 1 and hello.fields["sn"][1] == {"n": "strip", "k": "hall", "c": 32}
    fault = decode_line(enc.fault(2, "exception", 'boom: \u00e9\U0001f600 "q"\n', "hole"))
    assert fault.seq == 2 and fault.fields == {"code": "exception", "msg": 'boom: \u00e9\U0001f600 "q"\n', "n": "hole"}
    hb = decode_line(enc.heartbeat(3, 4, 5, 6, 7, 8, -70, {"irq_max": 9}))
    assert hb.seq == 2 and not hb.reliable and hb.fields["rssi"] == -70 and hb.fields["irq_max"] == 9
    reply = decode_line(enc.reply(4, "config_get", "g-1", True, {"k": None, "val": {"board_id": "table-3"}}))
    assert reply.fields == {
        "c": "config_get",
        "id": "g-1",
        "ok": True,
        "d": {"k": None, "val": {"board_id": "table-3"}},
    }
    err = decode_line(enc.error(5, ("crc", "CRC mismatch: line garbled in transit", None, None)))
    assert err.fields == {
        "c": None,
        "id": None,
        "ok": False,
        "err": "crc",
        "msg": "CRC mismatch: line garbled in transit",
    }
    g = decode_line(enc.gap(1, 2, 6))
    assert g.kind == "gap" and g.seq == 2 and g.fields == {"first": 1, "last": 2, "lost": 2}


def test_firmware_whole_config_reply_is_not_oversize() -> None:
    """A config_get of the whole configuration is over 512 bytes: board -> host lines have a larger bound."""
    from fb import config

    profile = json.loads((ROOT / "hardware" / "profiles" / "pico_w.json").read_text())
    cfg = config.Config(profile, {"board_id": "table-3", "wifi": {"ssid": "club", "password": "secret"}})
    ok, val = cfg.get(None)
    assert ok
    line = proto.Encoder("table-3", 7, 41).reply(1, "config_get", 4, True, {"k": None, "val": val})
    assert 512 < len(line) <= MAX_BOARD_LINE
    assert decode_line(line).fields["d"]["val"]["board_id"] == "table-3"
