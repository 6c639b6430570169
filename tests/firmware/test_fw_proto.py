"""Protocol v1: the shared test vectors encode byte-exact and bad host lines get the exact error reply,
under CPython and under the real MicroPython; the decoder never raises; the USB serial link loop
survives garbage, half lines and oversize lines on a real pipe to a MicroPython process."""

import json
import os
import random
import subprocess
import time
import zlib
from pathlib import Path

from fb import proto
from fb.outbox import Outbox
from firmware_runner import FIRMWARE, check_micropython, micropython_exe
from hypothesis import given, settings
from hypothesis import strategies as st

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
BOARD = json.loads((VECTORS / "board_messages.json").read_text())
HOST = json.loads((VECTORS / "host_commands.json").read_text())


def host_line(v):
    return bytes.fromhex(v["line_hex"]) if "line_hex" in v else v["line"]


# ---- the vector files themselves, checked independently of fb.proto ----------------------------------


def test_board_vectors_are_self_consistent():
    names = set()
    for v in BOARD["vectors"]:
        assert v["name"] not in names
        names.add(v["name"])
        line = v["line"]
        assert line.isascii() and "\n" not in line
        assert line.startswith("FB1|")
        body, crc = line[4:].rsplit("|", 1)
        assert body == v["json"]
        assert crc == f"{zlib.crc32(body.encode()):08x}"
        msg = json.loads(body)
        assert list(msg)[:6] == ["v", "b", "bt", "s", "t", "m"]
        assert list(msg)[6:] == sorted(list(msg)[6:])
        assert (msg["v"], msg["b"], msg["bt"]) == (1, BOARD["board"], BOARD["boot"])
        assert body == json.dumps(msg, separators=(",", ":"), ensure_ascii=True)
        if v["call"] == "event":
            kind, sensor, t, fields = v["args"]
            assert msg == {
                "v": 1,
                "b": "fb-01",
                "bt": 7,
                "s": v["seq_before"] + 1,
                "t": t,
                "m": kind,
                "n": sensor,
                **fields,
            }
    kinds = {json.loads(v["json"])["m"] for v in BOARD["vectors"]}
    assert kinds == {
        "hello",
        "pass",
        "stuck",
        "clear",
        "shot_start",
        "baseline_rest",
        "count",
        "chatter",
        "fault",
        "gap",
        "heartbeat",
        "reply",
    }


def test_host_vectors_cover_every_command_and_failure():
    assert {v["cmd"]["c"] for v in HOST["valid"]} == set(proto.COMMANDS)
    assert {v["error"] for v in HOST["invalid"]} >= {"frame", "crc", "json", "schema", "unknown", "version", "oversize"}


# ---- CPython ----------------------------------------------------------------------------------------


def encode(v):
    enc = proto.Encoder(BOARD["board"], BOARD["boot"], v["seq_before"])
    line = getattr(enc, v["call"])(*v["args"])
    return line, enc.last_json, enc.seq


def test_board_vectors_encode_byte_exact_cpython():
    for v in BOARD["vectors"]:
        assert encode(v) == (v["line"], v["json"], v["seq_after"]), v["name"]


def test_host_vectors_decode_cpython():
    for v in HOST["valid"]:
        assert proto.decode(host_line(v)) == (v["cmd"], None), v["name"]
    for v in HOST["invalid"]:
        cmd, bad = proto.decode(host_line(v))
        assert cmd is None and bad[0] == v["error"], v["name"]
        enc = proto.Encoder(HOST["board"], HOST["boot"], HOST["seq"])
        assert enc.error(HOST["t"], bad) == v["reply"], v["name"]


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(max_size=700),
        st.binary(max_size=700),
        st.text(max_size=200).map(lambda s: "FB1|" + s),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
            lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
            max_leaves=8,
        ).map(lambda o: proto.PREFIX + json.dumps(o)),
    )
)
def test_decoder_never_raises_cpython(line):
    cmd, bad = proto.decode(line)
    assert (cmd is None) != (bad is None)
    enc = proto.Encoder("fb-01", 7)
    out = enc.error(0, bad) if bad else enc.reply(0, cmd["c"], cmd["id"], True)
    assert out.isascii() and "\n" not in out


def test_crc_fallback_matches_binascii():
    saved = proto._crc32
    try:
        proto._crc32 = None
        for data in (b"", b"abc", bytes(range(256)), b'{"v":1}'):
            assert proto.crc32(data) == zlib.crc32(data)
    finally:
        proto._crc32 = saved


def test_encoder_rejects_unknown_kinds_and_floats():
    enc = proto.Encoder("fb-01", 7)
    for bad in (lambda: enc.event("zap", "hole", 0, {}), lambda: enc.event("pass", "hole", 0, {"dur_us": 1.5})):
        try:
            bad()
        except ValueError:
            pass
        else:
            raise AssertionError("accepted")
    assert enc.seq == 0


class FakeConfig:
    def __init__(self):
        self.values = {"heartbeat_ms": 10000}

    def get(self, key):
        if key is None:
            return True, dict(self.values)
        return (True, self.values[key]) if key in self.values else (False, "no such setting")

    def set(self, key, val):
        if key != "heartbeat_ms" or not isinstance(val, int):
            return False, "heartbeat_ms must be an integer"
        self.values[key] = val
        return True, ""


def cmd(j):
    return proto.frame(json.dumps(j, separators=(",", ":")))


def test_dispatcher_runs_every_command():
    enc = proto.Encoder("fb-01", 7)
    box = Outbox(8, 7, lambda a, b: enc.gap(a, b, 0))
    for i in range(3):
        box.add(enc.seq + 1, enc.event("pass", "hole", i, {"dur_us": 900}))
    d = proto.Dispatcher(enc, box, FakeConfig(), status=lambda: {"up": 5}, selftest=lambda: {"hole": "broken"})

    def run(j):
        out = d.handle(cmd(j), 99)
        return [json.loads(x[4:].rsplit("|", 1)[0]) for x in out]

    ping = run({"c": "ping", "id": 1})
    assert ping[0]["m"] == "reply" and ping[0]["d"] == {"q": 3} and ping[0]["s"] == 3
    assert [m["s"] for m in ping[1:]] == [1, 2, 3]  # ping resends every un-acked line, in order
    assert run({"c": "ack", "bt": 7, "s": 2}) == []
    assert box.depth() == 1
    assert run({"c": "ack", "bt": 6, "s": 3}) == [] and box.depth() == 1 and d.stale_acks == 1
    st_ = run({"c": "status", "id": 2})[0]
    assert st_["ok"] and st_["d"] == {"up": 5, "q": 1, "drop": 0, "bad_cmds": 0}
    assert run({"c": "selftest", "id": 3})[0]["d"] == {"sensors": {"hole": "broken"}}
    assert run({"c": "config_get", "id": 4, "k": "heartbeat_ms"})[0]["d"] == {"k": "heartbeat_ms", "val": 10000}
    bad = run({"c": "config_set", "id": 5, "k": "heartbeat_ms", "val": "x"})[0]
    assert (bad["ok"], bad["err"], bad["id"]) == (False, "invalid", 5)
    good = run({"c": "config_set", "id": 6, "k": "heartbeat_ms", "val": 2000})[0]
    assert good["ok"] and good["d"] == {"k": "heartbeat_ms", "val": 2000}
    assert not d.reboot_requested
    assert run({"c": "reboot", "id": 7})[0]["ok"] and d.reboot_requested
    assert d.errors == 1


def test_dispatcher_without_callbacks_answers_unavailable():
    d = proto.Dispatcher(proto.Encoder("fb-01", 7))
    for c in ("selftest", "config_get"):
        r = json.loads(d.handle(cmd({"c": c}), 0)[0][4:].rsplit("|", 1)[0])
        assert (r["ok"], r["err"]) == (False, "unavailable")


# ---- the real MicroPython ---------------------------------------------------------------------------

VECTOR_SCRIPT = """
import sys, json
from fb import proto
B, H = json.loads(sys.stdin.read())
bad = []
for v in B["vectors"]:
    enc = proto.Encoder(B["board"], B["boot"], v["seq_before"])
    line = getattr(enc, v["call"])(*v["args"])
    if (line, enc.last_json, enc.seq) != (v["line"], v["json"], v["seq_after"]):
        bad.append(("encode", v["name"], line))
def host_line(v):
    return bytes.fromhex(v["line_hex"]) if "line_hex" in v else v["line"]
for v in H["valid"]:
    got = proto.decode(host_line(v))
    if got != (v["cmd"], None):
        bad.append(("valid", v["name"], repr(got)))
for v in H["invalid"]:
    cmd, err = proto.decode(host_line(v))
    enc = proto.Encoder(H["board"], H["boot"], H["seq"])
    if cmd is not None or enc.error(H["t"], err) != v["reply"]:
        bad.append(("invalid", v["name"], repr(err)))
print(json.dumps(bad))
print("checked", len(B["vectors"]) + len(H["valid"]) + len(H["invalid"]))
"""


def test_vectors_byte_exact_under_micropython():
    out = check_micropython(VECTOR_SCRIPT, stdin=json.dumps([BOARD, HOST]))
    mismatches, checked = out.splitlines()
    assert json.loads(mismatches) == []
    assert checked == f"checked {len(BOARD['vectors']) + len(HOST['valid']) + len(HOST['invalid'])}"


def test_decoder_never_raises_under_micropython():
    rng = random.Random(3)
    lines = []
    for _ in range(600):
        n = rng.randrange(0, 700)
        raw = bytes(rng.randrange(256) for _ in range(n))
        lines.append(raw.hex())
        lines.append((b"FB1|" + raw[:60]).hex())
    for v in HOST["valid"]:  # every prefix of a valid line: the half lines a cut cable leaves
        whole = host_line(v)
        whole = whole.encode() if isinstance(whole, str) else whole
        lines += [whole[:i].hex() for i in range(len(whole))]
    script = """
import sys, json
from fb import proto
enc = proto.Encoder("fb-01", 7)
n = 0
for h in json.loads(sys.stdin.read()):
    cmd, bad = proto.decode(bytes.fromhex(h))
    assert (cmd is None) != (bad is None)
    if bad:
        enc.error(0, bad)
    n += 1
print("ok", n)
"""
    assert check_micropython(script, stdin=json.dumps(lines)).strip() == f"ok {len(lines)}"


LINK_SCRIPT = """
import sys
from fb import proto
from fb.outbox import Outbox
from fb.serial_link import SerialLink
from fb.compat import sleep_ms
enc = proto.Encoder("fb-01", 7)
box = Outbox(4, 7, lambda a, b: enc.gap(a, b, 0))
d = proto.Dispatcher(enc, box, None, status=lambda: {"up": 1}, selftest=lambda: {"hole": "clear"})
link = SerialLink()
for i in range(2):
    line = enc.event("pass", "hole", 1000 + i, {"dur_us": 700})
    box.add(enc.seq, line)
    link.send(line)
t = 0
while not link.closed:
    t += 1
    link.service(d, t)
    sleep_ms(2)
link.send(enc.heartbeat(t, 0, 0, box.depth(), box.dropped, 0))
"""


def _frames(text):
    msgs, noise = [], []
    for ln in text.splitlines():
        if ln.startswith("FB1|"):
            body, crc = ln[4:].rsplit("|", 1)
            assert crc == f"{zlib.crc32(body.encode()):08x}"
            msgs.append(json.loads(body))
        else:
            noise.append(ln)
    return msgs, noise


def test_serial_link_loop_on_a_pipe_under_micropython():
    env = {**os.environ, "MICROPYPATH": str(FIRMWARE)}
    p = subprocess.Popen(
        [micropython_exe(), "-c", LINK_SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    chunks = [
        b"garbage \x00\xff\xfe no prefix\n",
        b'FB1|{"c":"pi',  # half a line: the rest comes later
        b'ng","id":1}\n',
        b"\n\r\n",  # blank lines are ignored
        b'FB1|{"c":"pi\n',  # a line cut short for good
        cmd({"c": "status", "id": 2}).encode() + b"\r\n",
        b"FB1|" + b"x" * 3000 + b"\n",  # oversize: cut, discarded up to the newline, answered
        cmd({"c": "selfdestruct", "id": 3}).encode() + b"\n",
        cmd({"c": "ack", "bt": 7, "s": 1}).encode() + b"\n",
        cmd({"c": "ping", "id": 4}).encode() + b"\n",
        b'FB1|{"c":"selftest","id":5}|00000000\n',  # bad CRC
        cmd({"c": "selftest", "id": 6}).encode() + b"\n",
        b'FB1|{"c":"status"',  # half line at end of input
    ]
    for c in chunks:
        p.stdin.write(c)
        p.stdin.flush()
        time.sleep(0.03)
    p.stdin.close()
    out = p.stdout.read()
    err = p.stderr.read()
    assert p.wait(timeout=20) == 0, err.decode()
    msgs, noise = _frames(out.decode())
    assert noise == []
    assert [m["m"] for m in msgs[:2]] == ["pass", "pass"]
    replies = [m for m in msgs if m["m"] == "reply"]
    summary = [(r["c"], r["id"], r["ok"], r.get("err")) for r in replies]
    assert summary == [
        (None, None, False, "frame"),
        ("ping", 1, True, None),
        (None, None, False, "frame"),
        ("status", 2, True, None),
        (None, None, False, "oversize"),
        ("selfdestruct", 3, False, "unknown"),
        ("ping", 4, True, None),
        (None, None, False, "crc"),
        ("selftest", 6, True, None),
        (None, None, False, "frame"),
    ]
    # the first ping resends both un-acked events; after the ack of seq 1 the second ping resends only seq 2
    seqs = [m["s"] for m in msgs if m["m"] == "pass"]
    assert seqs == [1, 2, 1, 2, 2]
    assert replies[8]["d"] == {"sensors": {"hole": "clear"}}
    assert msgs[-1]["m"] == "heartbeat" and msgs[-1]["q"] == 1
