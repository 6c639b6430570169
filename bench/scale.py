"""Figure 6: many boards on one broker, followed by one bridge process. The boards are CPython processes of many
boards each (bench/fleet.py: the board protocol over MQTT, not the firmware's main loop); the bridge is the real
`flickboard bridge` process, with the list of its boards as a hall gives it (`--boards`); a display subscribed to
every board's scoreboard takes the arrival times.

`admission()` is the figure's other half: a bridge given no list takes at most MAX_NEW_BOARDS new boards in a run, and
what it does with the boards beyond them (host/board/bridge/admission.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from e2e import FLICKBOARD
from paho.mqtt.enums import CallbackAPIVersion

from flickboard import lifecycle
from flickboard.board.bridge.admission import MAX_NEW_BOARDS
from flickboard.core import journal
from flickboard.mqtt import EVERY_BOARD, HEALTH, SCOREBOARD, board_topic, bridge_topic

from .common import MATCH, PLAYERS, ROOT, RULES, cpu_seconds, rss_kib, summary
from .fleet import board_name


class AllScoreboards:
    """Every board's scoreboard: (arrival µs, processed) per board."""

    def __init__(self, port: int) -> None:
        self.arrivals: dict[str, list[tuple[int, int]]] = {}
        self.lock = threading.Lock()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"scale-{uuid.uuid4().hex[:6]}")
        self.c.on_connect = lambda c, *_: c.subscribe(board_topic(EVERY_BOARD, SCOREBOARD), qos=1)
        self.c.on_message = self._message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _message(self, c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
        at = time.time_ns() // 1000
        board = msg.topic.split("/")[1]
        processed = int((json.loads(msg.payload).get("board_link") or {}).get("processed") or 0)
        with self.lock:
            self.arrivals.setdefault(board, []).append((at, processed))

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def scale(
    broker: Any, tmp: Path, boards: int = 100, events: int = 60, rate: float = 1.0, processes: int = 4
) -> dict[str, Any]:
    """`boards` boards sending `events` events each at `rate` per second, spread over `processes` processes."""
    run = tmp / "scale"
    run.mkdir(parents=True)
    journals = run / "journals"
    url = f"mqtt://127.0.0.1:{broker.port}"
    args = ["--mqtt", url, "--journals", str(journals), "--rules", RULES, "--players", *PLAYERS]
    args += ["--match", MATCH, "--client-id", "scale-bridge"]
    args += ["--boards", ",".join(board_name(i) for i in range(boards))]  # as a hall runs them: listed
    log = (run / "bridge.log").open("wb")
    bridge = lifecycle.spawn([FLICKBOARD, "bridge", *args], stdout=log, stderr=subprocess.STDOUT)
    display = AllScoreboards(broker.port)
    fleets = []
    try:
        time.sleep(2)  # the bridge connects and subscribes
        cpu0 = cpu_seconds(bridge.pid)
        t0 = time.monotonic()
        per = -(-boards // processes)
        for k in range(processes):
            first, count = k * per, min(per, boards - k * per)
            if count <= 0:
                break
            out = run / f"fleet-{k}.json"
            cmd = [sys.executable, "-m", "bench.fleet", str(broker.port), str(first), str(count), str(events)]
            fleets.append((lifecycle.spawn([*cmd, str(rate), str(out)], cwd=ROOT), out))
        for p, _ in fleets:
            p.wait(timeout=events / rate + 180)
        wall = time.monotonic() - t0
        cpu = cpu_seconds(bridge.pid) - cpu0
        rss, peak = rss_kib(bridge.pid)
        time.sleep(1)
    finally:
        display.close()
        for p, _ in fleets:  # all ended already, unless the bench is being stopped
            lifecycle.end(p)
        lifecycle.end(bridge, 15)
        log.close()
    sent: dict[str, Any] = {}
    for p, out in fleets:
        if p.returncode != 0:
            raise RuntimeError(f"a fleet process failed ({p.returncode})")
        sent.update(json.loads(out.read_text()))
    lat: list[float] = []
    lost = duplicates = never_acked = 0
    for name, b in sent.items():
        total = b["total"]
        never_acked += total - b["acked"]
        paths = sorted((journals / name).glob("*.jsonl"))
        seqs = [r["s"] for r in journal.read(str(paths[-1])).records if r.get("src") == "board"] if paths else []
        lost += len(set(range(1, total + 1)) - set(seqs))
        duplicates += len(seqs) - len(set(seqs))
        arrivals = sorted(display.arrivals.get(name, []))
        i = 0
        for seq in range(2, total + 1):
            while i < len(arrivals) and arrivals[i][1] < seq:
                i += 1
            if i < len(arrivals):
                lat.append((arrivals[i][0] - b["sent_at"][str(seq)]) / 1000)
    n = sum(b["total"] for b in sent.values())
    times = [t for b in sent.values() for t in b["sent_at"].values()]
    span = (max(times) - min(times)) / 1e6
    return {
        "boards": len(sent),
        "listed": True,
        "board_processes": len(fleets),
        "events": n,
        "events_per_s_offered": round(len(sent) * rate, 1),
        "events_per_s_sent": round(n / span, 1) if span else None,
        "lost": lost,
        "duplicates_journaled": duplicates,
        "never_acked": never_acked,
        "resent_on_ping": sum(b["resent"] for b in sent.values()),
        "latency_ms": summary(lat) if lat else None,
        "bridge_cpu_s": round(cpu, 2),
        "bridge_cpu_percent_of_one_core": round(100 * cpu / wall, 1),
        "bridge_rss_kib": rss,
        "bridge_rss_peak_kib": peak,
        "wall_s": round(wall, 1),
    }


class BridgeHealth:
    """The bridge's retained health document, as an operator's console reads it."""

    def __init__(self, port: int, bridge_id: str) -> None:
        self.doc: dict[str, Any] | None = None
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"health-{uuid.uuid4().hex[:6]}")
        self.c.on_connect = lambda c, *_: c.subscribe(bridge_topic(bridge_id, HEALTH), qos=1)
        self.c.on_message = self._message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _message(self, c: Any, u: Any, msg: mqtt.MQTTMessage) -> None:
        self.doc = json.loads(msg.payload)

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def admission(broker: Any, tmp: Path, boards: int = 70, events: int = 10, rate: float = 2.0) -> dict[str, Any]:
    """`boards` new boards (more than MAX_NEW_BOARDS) on a bridge given no list of boards: which are taken, and what
    happens to the others: refused (nothing journaled or acked), counted in the health document, said once each."""
    run = tmp / "admission"
    run.mkdir(parents=True)
    journals = run / "journals"
    url = f"mqtt://127.0.0.1:{broker.port}"
    args = ["--mqtt", url, "--journals", str(journals), "--rules", RULES, "--players", *PLAYERS, "--match", MATCH]
    args += ["--client-id", "admission-bridge"]  # and no --boards
    log_path = run / "bridge.log"
    log = log_path.open("wb")
    bridge = lifecycle.spawn([FLICKBOARD, "bridge", *args], stdout=log, stderr=subprocess.STDOUT)
    health = BridgeHealth(broker.port, "admission-bridge")
    out = run / "fleet.json"
    fleet = None
    try:
        time.sleep(2)  # the bridge connects and subscribes
        cmd = [sys.executable, "-m", "bench.fleet", str(broker.port), "0", str(boards), str(events), str(rate)]
        fleet = lifecycle.spawn([*cmd, str(out), "10"], cwd=ROOT)  # 10 s for acks: the refused never get one
        fleet.wait(timeout=events / rate + 120)
        time.sleep(3)  # the last health document
    finally:
        health.close()
        if fleet is not None:
            lifecycle.end(fleet)
        lifecycle.end(bridge, 15)
        log.close()
    if fleet is None or fleet.returncode != 0:
        raise RuntimeError("the fleet of boards failed")
    sent = json.loads(out.read_text())
    taken = sorted(b for b in sent if any((journals / b).glob("*.jsonl")))
    refused = sorted(set(sent) - set(taken))
    journaled_refused = sum(1 for b in refused if (journals / b).exists())
    acked_refused = sum(sent[b]["acked"] for b in refused)
    text = log_path.read_text(errors="replace")
    said = {b: text.count(f"board {b!r} is new and this bridge has already taken") for b in refused}
    doc = health.doc or {}
    counts = doc.get("admission") or {}
    listed = [e for e in doc.get("recent_errors") or [] if e.get("code") == "board"]
    return {
        "boards": len(sent),
        "events_per_board": sent[next(iter(sent))]["total"] if sent else 0,
        "cap": MAX_NEW_BOARDS,
        "taken": len(taken),
        "taken_acked_fully": sum(1 for b in taken if sent[b]["acked"] == sent[b]["total"]),
        "refused_boards": len(refused),
        "refused_journaled": journaled_refused,
        "refused_acked": acked_refused,
        "refused_said_once": sum(1 for n in said.values() if n == 1),
        "refused_said_more": sum(1 for n in said.values() if n > 1),
        "health_new_boards": counts.get("new_boards"),
        "health_refused_messages": counts.get("refused"),
        "health_recent_errors_board": len(listed),
        "example_line": next((ln.strip() for ln in text.splitlines() if "is new and this bridge" in ln), None),
    }
