"""Issue 19's attacks, many times over, against the real bridge (host/board/bridge/) writing real journal files, with
board lines from the firmware's own encoder (firmware/fb/proto.py). `make soak` runs it after the fault table and
writes its table into docs/reliability.md (between the `attacks:begin` and `attacks:end` markers); the tests run a
short version (tests/board/test_bridge_attacks.py).

    python tests/support/attacks.py --runs 200 [--seed 1] [--no-write]

Each run plays a random sequence of board events on one board and makes one attack at a random moment:

- `forged-hello`: a valid `hello` with another boot id on a second port, sometimes followed by forged events of that
  boot, sometimes with a bridge restart after it (where the forgery comes again, as a retained message would);
- `other-content`: an event under the board's next seq with other content, sent just before the real one;
- `flipped-bit`: one bit flipped in a random complete line of the journal after the first while the bridge is
  stopped; the board then resends its last event (half the time) and sends a new one;
- `flipped-set-up`: one bit flipped in the journal's first line (the match's set-up); the board sends a new event;
- `torn-write`: the journal's last line cut short at a random byte (what a crash mid-write leaves).

What is counted: events the real board sent that are neither in the journal (as an event, or whole inside a hold)
nor acked (`lost`), events journaled twice (`duplicated`), runs where the bridge's last ack to the real board is
not its last event (`unacked`), runs with no hold where one is due, or a hold where none is (`silent`, `spurious`).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for extra in (ROOT, ROOT / "firmware"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from fb import proto  # noqa: E402

from flickboard.board.bridge import Bridge, GameSetup  # noqa: E402
from flickboard.core import journal  # noqa: E402

DOC = ROOT / "docs" / "reliability.md"
BEGIN, END = "<!-- attacks:begin -->", "<!-- attacks:end -->"
SENSORS = [{"name": "hole", "kind": "beam"}]
ATTACKS = ("forged-hello", "other-content", "flipped-bit", "flipped-set-up", "torn-write")


@dataclass
class Tally:
    runs: int = 0
    events: int = 0  # reliable messages the real board sent
    lost: int = 0
    duplicated: int = 0
    unacked: int = 0
    held: int = 0  # runs where the game was put on hold (where one was due)
    silent: int = 0  # runs where a hold was due and none came
    spurious: int = 0  # runs with a hold where none was due
    waited: int = 0  # runs where the board's next event was acked only after the bridge's 10 s wait for a hole
    problems: list[str] = field(default_factory=list)


class Port:
    def __init__(self, name: str) -> None:
        self.name = name
        self.acks: list[tuple[int, int]] = []

    def answer(self, line: str) -> None:
        cmd = json.loads(line.strip().split("|")[1])
        if cmd.get("c") == "ack":
            self.acks.append((cmd["bt"], cmd["s"]))


def _events(rng: random.Random, enc: Any, count: int) -> list[str]:
    lines = []
    for i in range(count):
        kind = rng.choice(["shot_start", "pass", "baseline_rest", "pass"])
        t = 1000 * (i + 1)
        if kind == "pass":
            lines.append(enc.event("pass", "hole", t, {"dur_us": rng.randrange(300, 5000)}))
        else:
            lines.append(enc.event(kind, "baseline", t, {"q": rng.randrange(1, 3), "seg": rng.randrange(1, 12)}))
    return lines


class Run:
    """One board's game on a real bridge in a temporary folder."""

    def __init__(self, rng: random.Random, tmp: Path) -> None:
        self.rng, self.tmp = rng, tmp
        self.now = 0.0  # the bridge's clock: moved on by hand
        self.bridge = self._bridge()
        self.port = Port("/dev/ttyACM0")
        self.boot = rng.randrange(1, 1 << 20)
        self.enc = proto.Encoder("t1", self.boot, 0)
        self.sent: list[tuple[int, int, str]] = []  # (boot, seq, content) of every reliable line it sent

    def _bridge(self) -> Bridge:
        setup = GameSetup("tournament-2019", ("Ana", "Ben"))
        return Bridge(self.tmp / "journals", setup, None, None, clock=lambda: self.now)

    def restart(self) -> None:
        self.bridge.close()
        self.bridge = self._bridge()

    def feed(self, line: str, port: Port | None = None) -> None:
        p = port or self.port
        self.bridge.serial_line(p.name, line, p.answer)

    def real(self, line: str) -> None:
        msg = json.loads(line.strip()[4:].rsplit("|", 1)[0])
        fields = {k: v for k, v in msg.items() if k not in ("v", "b", "bt", "s", "t", "m")}
        self.sent.append((msg["bt"], msg["s"], _content(msg["m"], fields, msg["t"])))
        self.feed(line)

    def records(self) -> list[dict[str, Any]]:
        """The newest journal's records, and the readable entries of an older one whose set-up was damaged."""
        *older, path = sorted((self.tmp / "journals" / "t1").glob("*.jsonl"))
        return [r for p in older for r in journal.salvage(str(p))] + journal.read(str(path), damaged_ok=True).records

    def check(self, t: Tally, hold_due: bool, extra: str = "") -> None:
        recs = self.records()
        mine = [r for r in recs if r["src"] == "board" and r["bt"] == self.boot and r["m"] != "gap"]
        keys = [(r["bt"], r["s"]) for r in mine]
        kept = {(r["bt"], r["s"], _content(r["m"], r["f"], r["t"])) for r in mine}
        kept |= {(r["bt"], r["s"], _content(r["m"], r["f"], r["t"])) for r in recs if r.get("hold") == "other-content"}
        holds = [r for r in recs if r["src"] == "bridge"]
        t.runs += 1
        t.events += len(self.sent)
        t.lost += sum(1 for k in self.sent if k not in kept and k[:2] not in self.unreadable)
        t.duplicated += len(keys) - len(set(keys))
        if not self.port.acks or self.port.acks[-1] != self.sent[-1][:2]:
            t.unacked += 1
            t.problems.append(f"{extra}: last ack {self.port.acks[-1:]} for {self.sent[-1]}")
        if hold_due and holds:
            t.held += 1
        elif hold_due:
            t.silent += 1
            t.problems.append(f"{extra}: no hold")
        elif holds:
            t.spurious += 1
            t.problems.append(f"{extra}: a hold where none was due")

    unreadable: frozenset[tuple[int, int]] = frozenset()  # events on a damaged line that does not parse


def forged_hello(rng: random.Random, tmp: Path, t: Tally) -> None:
    r = Run(rng, tmp)
    lines = [r.enc.hello(0, "1.0", "pico_w", SENSORS, "power"), *_events(rng, r.enc, rng.randrange(3, 30))]
    at = rng.randrange(1, len(lines))  # the real board sends at least one line after the forgery
    forger = proto.Encoder("t1", r.boot ^ rng.randrange(1, 1 << 20), 0)
    forged = [forger.hello(0, "1.0", "pico_w", SENSORS, "power"), *_events(rng, forger, rng.randrange(0, 4))]
    fake = Port("/dev/ttyUSB9")
    restart = rng.random() < 0.5
    for i, line in enumerate(lines):
        if i == at:
            for f in forged:
                r.feed(f, fake)
            if restart:
                r.restart()
                r.feed(forged[0], fake)  # it comes again, as a retained message would
        r.real(line)
    r.check(t, True, f"forged-hello at {at} of {len(lines)}, restart {restart}")
    r.bridge.close()


def other_content(rng: random.Random, tmp: Path, t: Tally) -> None:
    r = Run(rng, tmp)
    lines = [r.enc.hello(0, "1.0", "pico_w", SENSORS, "power"), *_events(rng, r.enc, rng.randrange(3, 30))]
    at = rng.randrange(1, len(lines))
    forger = proto.Encoder("t1", r.boot, at)  # the next seq is at + 1
    forged = forger.event("pass", "hole", 999_999, {"dur_us": rng.randrange(1, 100)})
    for i, line in enumerate(lines):
        if i == at:
            r.feed(forged)
        r.real(line)
        if i == at and rng.random() < 0.5:
            r.feed(line)  # the board resends it (our ack got lost): not held twice
    r.check(t, True, f"other-content at {at} of {len(lines)}")
    r.bridge.close()


def _game(rng: random.Random, r: Run) -> None:
    r.real(r.enc.hello(0, "1.0", "pico_w", SENSORS, "power"))
    for line in _events(rng, r.enc, rng.randrange(3, 30)):
        r.real(line)
        if rng.random() < 0.2:
            r.bridge.submit("t1", rng.choice(["zone", "hit", "miss", "Ben:in"]))


def flipped_bit(rng: random.Random, tmp: Path, t: Tally) -> None:
    r = Run(rng, tmp)
    _game(rng, r)
    last_line = r.enc.last_json
    r.bridge.close()
    [path] = sorted((tmp / "journals" / "t1").glob("*.jsonl"))
    data = path.read_bytes()
    starts = [0, *[i + 1 for i, b in enumerate(data) if b == 0x0A][:-1]]
    line = rng.randrange(1, len(starts))  # never the header
    end = data.index(b"\n", starts[line])
    at = rng.randrange(starts[line], end)
    flipped = data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]
    path.write_bytes(flipped)
    seen = journal.read(str(path), damaged_ok=True)
    r.unreadable = frozenset(
        (r.boot, s)
        for s in range(1, r.enc.seq + 1)
        if not any(x.get("s") == s and x.get("src") == "board" for x in seen.records)
    )
    r.bridge = r._bridge()
    if rng.random() < 0.5:
        r.feed(_frame(last_line))  # the board resends its last event (its ack was lost): a duplicate
    r.real(r.enc.event("pass", "hole", 10**7, {"dur_us": 800}))
    if r.port.acks[-1] != r.sent[-1][:2]:  # held behind a seq the journal cannot show: 10 s, then recorded lost
        r.now += 11
        r.bridge.tick()
        t.waited += 1
    ok = path.read_bytes().startswith(flipped) and list(path.parent.glob("*.damaged-*"))
    if not ok or list(path.parent.glob("*.torn-*")):
        t.problems.append(f"flipped-bit line {line + 1}: the journal was cut or no copy kept")
    r.check(t, True, f"flipped-bit line {line + 1} byte {at - starts[line]}")
    r.bridge.close()


def flipped_set_up(rng: random.Random, tmp: Path, t: Tally) -> None:
    """One bit flipped in line 1, the match's set-up: read as it seems when it still reads, else the match is kept
    as it is and a new one starts; either way held, and the board acked."""
    r = Run(rng, tmp)
    _game(rng, r)
    r.bridge.close()
    [path] = sorted((tmp / "journals" / "t1").glob("*.jsonl"))
    data = path.read_bytes()
    at = rng.randrange(0, data.index(b"\n"))
    path.write_bytes(data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :])
    r.bridge = r._bridge()
    r.real(r.enc.event("pass", "hole", 10**7, {"dur_us": 800}))
    r.check(t, True, f"flipped-set-up byte {at}")
    r.bridge.close()


def torn_write(rng: random.Random, tmp: Path, t: Tally) -> None:
    r = Run(rng, tmp)
    _game(rng, r)
    r.bridge.close()
    [path] = sorted((tmp / "journals" / "t1").glob("*.jsonl"))
    data = path.read_bytes()
    start = data.rstrip(b"\n").rindex(b"\n") + 1
    cut = rng.randrange(start + 1, len(data) - 1)  # a part of the last line, without its newline
    path.write_bytes(data[:cut])
    last = json.loads(data[start:])
    r.bridge = r._bridge()
    if last.get("src") == "board":  # never acked in a real crash: the board sends it again
        r.sent.pop()
        r.enc.seq -= 1
        r.real(r.enc.event(last["m"], last["f"]["n"], last["t"], {k: v for k, v in last["f"].items() if k != "n"}))
    r.real(r.enc.event("pass", "hole", 10**7, {"dur_us": 800}))
    if not list(path.parent.glob("*.torn-*")):
        t.problems.append("torn-write: not set aside")
    r.check(t, False, f"torn-write at {cut - start} of {len(data) - start}")
    r.bridge.close()


def _content(kind: str, fields: dict[str, Any], t_us: int) -> str:
    return json.dumps([kind, fields, t_us], sort_keys=True)


def _frame(body: str) -> str:
    return f"FB1|{body}|{zlib.crc32(body.encode()):08x}\n"


RUNNERS: dict[str, Callable[[random.Random, Path, Tally], None]] = {
    "forged-hello": forged_hello,
    "other-content": other_content,
    "flipped-bit": flipped_bit,
    "flipped-set-up": flipped_set_up,
    "torn-write": torn_write,
}


def run(runs: int, seed: int = 1, only: tuple[str, ...] = ATTACKS) -> dict[str, Tally]:
    """`runs` of each attack; the tallies by attack."""
    logger = logging.getLogger("flickboard")
    level = logger.level
    logger.setLevel(logging.ERROR)  # the holds are logged as warnings: thousands here
    out: dict[str, Tally] = {}
    try:
        for name in only:
            t = out[name] = Tally()
            for i in range(runs):
                rng = random.Random(f"{name}-{seed}-{i}")
                tmp = Path(tempfile.mkdtemp(prefix="fb-attack-"))
                try:
                    RUNNERS[name](rng, tmp, t)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
    finally:
        logger.setLevel(level)
    return out


_FLOOD = """
import sys, time
sys.path[:0] = [sys.argv[1]]
def peak():
    return next(int(x.split()[1]) // 1024 for x in open("/proc/self/status") if x.startswith("VmHWM"))
from flickboard.core.session import Session
from flickboard.rules.pichenotte import Pichenotte
path, count, base = sys.argv[2], int(sys.argv[3]), peak()
t0 = time.monotonic()
if count:
    s = Session.create(path, Pichenotte.create("tournament-2019", ["North", "South"]))
    s.record("t1", 6, 1, "stuck", {"n": "hole", "after_ms": 3000})  # a review opens; nobody clears it
    for i in range(count):
        s.record("t1", 7, i + 1, "chatter", {"n": "ditch", "bursts": i, "edges": 2 * i}, 1000 * i, sync=False)
        if i % 1000 == 999:
            s.journal.sync()
else:
    s = Session.resume(path)
print(peak() - base, len(s.fold.queue), round(time.monotonic() - t0, 1))
if not count:
    t0 = time.monotonic()
    s.submit("reviewed")
    print(s.fold.waiting_events, s.fold.sensor_events, round(time.monotonic() - t0, 1))
s.close()
"""


def review_flood(count: int) -> str:
    """`count` board events while a review stays open, then a restart and `reviewed`, each in a process of its own:
    how much the peak memory grows, and how many events wait in memory."""
    with tempfile.TemporaryDirectory(prefix="fb-flood-") as tmp:
        path = str(Path(tmp) / "flood.jsonl")
        live = subprocess.run(
            [sys.executable, "-c", _FLOOD, str(ROOT), path, str(count)], capture_output=True, text=True
        )
        again = subprocess.run([sys.executable, "-c", _FLOOD, str(ROOT), path, "0"], capture_output=True, text=True)
        if live.returncode or again.returncode:
            return f"the review flood failed: {(live.stderr or again.stderr).strip().splitlines()[-1]}"
        grew, held, secs = live.stdout.split()
        grew2, held2, secs2 = again.stdout.splitlines()[0].split()
        left, events, secs3 = again.stdout.splitlines()[1].split()
    return (
        f"A review nobody clears while {count:,} board events arrive: the session holds {held} of them in memory "
        f"(its peak grows by {grew} MB, {secs} s); resumed after a restart, {held2} (peak +{grew2} MB: the journal's "
        f"bytes, read once to check them; {secs2} s); `reviewed` then applies all {int(events) - 1:,} in order in "
        f"{secs3} s ({left} left waiting)."
    )


def table(tallies: dict[str, Tally], runs: int, seed: int, secs: float) -> str:
    rows = [
        "| attack | runs | events the board sent | lost | journaled twice | last event not acked | held for a person | "
        "silent (no hold) | hold where none was due | acked after the 10 s wait for a hole |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, t in tallies.items():
        rows.append(
            f"| {name} | {t.runs} | {t.events} | {t.lost} | {t.duplicated} | {t.unacked} | {t.held} | {t.silent} | "
            f"{t.spurious} | {t.waited} |"
        )
    rows.append("")
    rows.append(
        f"Generated by `tests/support/attacks.py --runs {runs} --seed {seed}` (`make soak` runs it) on "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {secs:.1f} s, Python "
        f"{sys.version.split()[0]}."
    )
    return "\n".join(rows)


def write(doc: Path, text: str) -> None:
    body = doc.read_text(encoding="utf-8")
    a, b = body.index(BEGIN) + len(BEGIN), body.index(END)
    doc.write_text(body[:a] + "\n" + text + "\n" + body[b:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="issue 19's attacks against the real bridge, many times over")
    ap.add_argument("--runs", type=int, default=200, help="runs of each attack (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--doc", type=Path, default=DOC)
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument("--flood", type=int, default=300_000, help="board events behind an open review (0: none)")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    tallies = run(args.runs, args.seed)
    text = table(tallies, args.runs, args.seed, time.monotonic() - t0)
    if args.flood:
        text += "\n\n" + review_flood(args.flood)
    print(text)
    for name, t in tallies.items():
        for p in t.problems[:10]:
            print(f"{name}: PROBLEM: {p}")
    if not args.no_write:
        write(args.doc, text)
        print(f"\nwrote the attack table into {args.doc}")
    return 1 if any(t.problems for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
