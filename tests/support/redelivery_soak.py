"""`make soak`, the broker part of "exactly once" (issue 34): boards, phones and one `flickboard bridge` on a real
Mosquitto with persistence (autosave every second), and a cycle played again and again: the bridge is killed with
SIGKILL; meanwhile boards send events (some restart with a new boot), phones send entries and `new` matches; the
broker autosaves with all of it queued for the bridge; the bridge starts again and takes it; then the broker is
killed with SIGKILL and starts again from its autosave, handing the bridge much of it again.

Checked at the end, from the journals: no board event journaled twice (by board, boot and seq, over all of a board's
matches), no entry journaled twice (by its id), no hold for a person (two boots alive, other content). The boards
here are plain MQTT clients with the firmware's encoder and no outbox, so an event the broker loses in its crash is
not sent again; such holes are journaled as lost after the bridge's wait and counted apart, not as a failure.

    .venv/bin/python tests/support/redelivery_soak.py [--boards 8] [--cycles 10] [--seed 1]

Exit status 1 when a check fails (the line says which).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "firmware"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import paho.mqtt.client as mqtt  # noqa: E402
from e2e import BridgeProc, bridge_args  # noqa: E402
from fb import proto  # noqa: E402  (the firmware's encoder)
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from flickboard.core import journal  # noqa: E402
from flickboard.sim.broker import Broker, start_mosquitto  # noqa: E402

SENSORS = [{"name": "hole", "kind": "beam"}]


class Boards:
    """Plain MQTT clients for the boards (one each) and one for the phones."""

    def __init__(self, broker: Broker, names: list[str]) -> None:
        self.clients: dict[str, mqtt.Client] = {}
        self.enc: dict[str, Any] = {}
        self.boot: Counter[str] = Counter()
        for name in [*names, "phones"]:
            c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"soak-{name}")
            c.reconnect_delay_set(1, 2)
            c.connect(broker.host, broker.port)
            c.loop_start()
            self.clients[name] = c
        for name in names:
            self.reboot(name)
        self.rids = 0
        self.news = 0

    def _raw(self, board: str, line: str) -> None:
        payload = line[len(proto.PREFIX) : line.rindex("|")]
        self.clients[board].publish(f"flickboard/{board}/raw", payload, qos=1)

    def reboot(self, board: str) -> None:
        self.boot[board] += 1
        self.enc[board] = proto.Encoder(board, self.boot[board], 0)
        self._raw(board, self.enc[board].hello(0, "1.0", "pico_w", SENSORS, "power"))

    def event(self, board: str, rng: random.Random) -> None:
        enc = self.enc[board]
        if rng.random() < 0.5:
            self._raw(board, enc.event("shot_start", "baseline", rng.randrange(10**6), {"q": 1, "seg": 1}))
        else:
            self._raw(board, enc.event("pass", "hole", rng.randrange(10**6), {"dur_us": 900}))

    def request(self, board: str, body: dict[str, Any]) -> None:
        self.clients["phones"].publish(f"flickboard/{board}/input", json.dumps(body), qos=1)

    def entry(self, board: str, rng: random.Random) -> None:
        self.rids += 1
        self.request(board, {"id": f"soak-{self.rids}", "line": rng.choice(["hit", "miss", "shot in", "undo"])})

    def new(self, board: str) -> None:
        self.news += 1
        self.request(board, {"id": f"soak-new-{self.news}", "new": {"players": ["Cy", "Di"]}})

    def close(self) -> None:
        for c in self.clients.values():
            c.loop_stop()
            c.disconnect()


def connects(bridge: BridgeProc) -> int:
    return bridge.output().count(": connected (")


def wait_for(what: str, ok: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise SystemExit(f"redelivery soak: {what} did not happen within {timeout:.0f} s")
        time.sleep(0.05)


def check(journals: Path, names: list[str]) -> dict[str, int]:
    """The journals' verdict: counts, and the problems (each a failure)."""
    out: Counter[str] = Counter()
    for board in names:
        records: list[dict[str, Any]] = []
        files = sorted((journals / board).glob("*.jsonl"))
        out["journals"] += len(files)
        for path in files:
            try:
                records += journal.read(str(path), damaged_ok=True).records
            except journal.JournalError as e:
                print(f"redelivery soak: board {board}: {e}")
                out["unreadable journals"] += 1
        events = [(r["bt"], r["s"]) for r in records if r.get("src") == "board" and r.get("m") != "gap"]
        out["events"] += len(events)
        out["events journaled twice"] += len(events) - len(set(events))
        rids = [r["rid"] for r in records if r.get("src") == "manual" and "rid" in r]
        out["entries"] += len(rids)
        out["entries journaled twice"] += len(rids) - len(set(rids))
        held = [r for r in records if r.get("src") == "bridge"]
        out["holds"] += len(held)
        for r in held[:3]:
            print(f"redelivery soak: board {board}: held: {r.get('in', '')[:300]}")
        out["declared lost (no outbox here)"] += sum(1 for r in records if r.get("m") == "gap")
    return dict(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--boards", type=int, default=8)
    ap.add_argument("--cycles", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    started = time.monotonic()
    names = [f"soak{i}" for i in range(args.boards)]
    limits = "".join(
        ln + "\n"
        for ln in (ROOT / "docs" / "mosquitto" / "mosquitto.conf").read_text().splitlines()
        if ln.startswith(("max_queued_", "queue_qos0"))
    )
    with tempfile.TemporaryDirectory(prefix="fb-redelivery-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "store").mkdir()
        conf = f"persistence true\npersistence_location {tmp}/store/\nautosave_interval 1\n{limits}"
        broker = start_mosquitto(conf)
        journals = tmp / "journals"
        bridge = BridgeProc([*bridge_args(journals), "--mqtt", broker.url], tmp)
        boards: Boards | None = None
        redelivered = 0
        try:
            wait_for("the bridge's first connection", lambda: connects(bridge) >= 1)
            boards = Boards(broker, names)
            wait_for("every board's hello", lambda: all((journals / b).is_dir() for b in names))
            for _ in range(args.cycles):
                bridge.kill9()
                for _ in range(rng.randrange(20, 60)):
                    board = rng.choice(names)
                    roll = rng.random()
                    if roll < 0.7:
                        boards.event(board, rng)
                    elif roll < 0.78:
                        boards.reboot(board)
                    elif roll < 0.95:
                        boards.entry(board, rng)
                    else:
                        boards.new(board)
                time.sleep(1.5)  # an autosave with all of it queued for the bridge
                seen = connects(bridge)
                bridge.start()
                wait_for("the bridge's reconnection", lambda s=seen: connects(bridge) > s)
                time.sleep(rng.uniform(0.2, 0.9))  # it takes the queue; then the broker dies before it saves again
                seen = connects(bridge)
                broker.crash()
                wait_for("the bridge's reconnection after the broker's crash", lambda s=seen: connects(bridge) > s)
                time.sleep(1.0)
            time.sleep(12.0)  # the bridge's wait for holes (10 s), then quiet
        finally:
            if boards is not None:
                boards.close()
            bridge.stop()
            redelivered = bridge.output().count("came again")
            broker.close()
        out = check(journals, names)
    kinds = ("events journaled twice", "entries journaled twice", "holds", "unreadable journals")
    problems = {k: out.get(k, 0) for k in kinds}
    figures = ", ".join(f"{v} {k}" for k, v in out.items())
    print(
        f"redelivery soak: {args.boards} boards, {args.cycles} cycles of bridge and broker kill -9 "
        f"in {time.monotonic() - started:.0f} s: {figures}; copies said by the bridge: {redelivered} "
        f"(said once per boot or entry)"
    )
    bad = {k: v for k, v in problems.items() if v}
    if bad:
        print("redelivery soak: FAILED: " + ", ".join(f"{v} {k}" for k, v in bad.items()))
        return 1
    print("redelivery soak: ok (nothing journaled twice, no hold)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
