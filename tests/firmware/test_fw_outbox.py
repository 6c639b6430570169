"""Outbox: resend order, cumulative acks, overflow drops the oldest and reports one exact gap; bounded memory.

Each scenario is one script run unchanged under CPython and under the real MicroPython."""

import json
import subprocess
import sys
import zlib

import pytest
from firmware_runner import FIRMWARE, check_micropython

PRELUDE = """
import gc
from fb import proto
from fb.outbox import Outbox
enc = proto.Encoder("fb-01", 7)
def mk(cap):
    return Outbox(cap, 7, lambda a, b: enc.gap(a, b, 5))
def put(box, n):
    for i in range(n):
        box.add(enc.seq + 1, enc.event("pass", "hole", 100 + enc.seq, {"dur_us": 800}))
def seqs(box):
    return [int(ln.split('"s":')[1].split(",")[0]) for ln in box.pending()]
def kinds(box):
    return [ln.split('"m":"')[1].split('"')[0] for ln in box.pending()]
"""

SCENARIOS = {
    "resend_in_order_after_reconnect": """
box = mk(8)
put(box, 5)
assert seqs(box) == [1, 2, 3, 4, 5]
assert list(box.pending()) == list(box.pending())  # reading does not consume: a reconnect resends it all
assert box.depth() == 5 and box.dropped == 0 and box.gap() is None
""",
    "cumulative_acks": """
box = mk(8)
put(box, 6)
assert box.ack(7, 3) == 3 and seqs(box) == [4, 5, 6]
assert box.ack(7, 3) == 0 and box.ack(7, 2) == 0  # duplicate and stale acks change nothing
assert box.ack(6, 99) == -1 and box.ignored_acks == 1 and seqs(box) == [4, 5, 6]  # another boot
assert box.ack(7, 5) == 2 and seqs(box) == [6]
assert box.ack(7, 100) == 1 and box.depth() == 0 and list(box.pending()) == []
put(box, 2)
assert seqs(box) == [7, 8] and box.ack(7, 7) == 1  # acks past a seq not yet sent are harmless
""",
    "overflow_drops_oldest_with_one_exact_gap": """
box = mk(4)
put(box, 4)
assert box.dropped == 0
assert box.add(enc.seq + 1, enc.event("pass", "hole", 0, {"dur_us": 800})) is True
put(box, 5)  # six drops in all: seqs 1..6, consecutive, merged into one range
assert box.dropped == 6 and box.depth() == 4 and box.gap() == (1, 6)
assert kinds(box) == ["gap", "pass", "pass", "pass", "pass"]
assert seqs(box) == [10, 7, 8, 9, 10]  # the gap's s is the high-water mark
g = list(box.pending())[0]
assert g == enc.gap(1, 6, 5), g
assert g.startswith('FB1|{"v":1,"b":"fb-01","bt":7,"s":10,"t":5,"m":"gap","first":1,"last":6,"lost":6}|')
assert box.ack(7, 5) == 0 and box.gap() == (1, 6)  # the gap stays until an ack covers its last seq
assert box.ack(7, 8) == 2 and box.gap() is None and seqs(box) == [9, 10]
put(box, 3)  # a new overflow after the old gap was acked opens a new range
assert box.gap() == (9, 9) and box.dropped == 7 and kinds(box)[0] == "gap"
""",
    "memory_is_bounded": """
box = mk(16)
put(box, 16)
gc.collect()
before = gc.mem_free() if hasattr(gc, "mem_free") else 0
for i in range(3000):
    box.add(enc.seq + 1, enc.event("pass", "hole", 7, {"dur_us": 800}))
gc.collect()
after = gc.mem_free() if hasattr(gc, "mem_free") else 0
assert box.depth() == 16 and len(box._lines) == 16 and len(box._seqs) == 16
assert box.dropped == 3000 and box.gap() == (1, 3000)
assert len(list(box.pending())) == 17
assert before - after < 4096, (before, after)  # lines are replaced, not accumulated
""",
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_outbox_cpython(name):
    script = PRELUDE + SCENARIOS[name] + "\nprint('ok')\n"
    p = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={"PYTHONPATH": str(FIRMWARE)}, timeout=60
    )
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_outbox_micropython(name):
    assert check_micropython(PRELUDE + SCENARIOS[name] + "\nprint('ok')\n", heapsize="256k").strip() == "ok"


def test_gap_line_is_valid_protocol():
    from fb import proto
    from fb.outbox import Outbox

    enc = proto.Encoder("fb-01", 7)
    box = Outbox(2, 7, lambda a, b: enc.gap(a, b, 9))
    for _ in range(5):
        box.add(enc.seq + 1, enc.event("stuck", "hole", 1, {"after_ms": 2000}))
    body, crc = box.gap_line()[4:].rsplit("|", 1)
    assert crc == f"{zlib.crc32(body.encode()):08x}"
    assert json.loads(body) == {
        "v": 1,
        "b": "fb-01",
        "bt": 7,
        "s": 5,
        "t": 9,
        "m": "gap",
        "first": 1,
        "last": 3,
        "lost": 3,
    }
    with pytest.raises(ValueError):
        Outbox(0, 7)
