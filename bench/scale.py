"""Figure 6: many boards on one broker, followed by one bridge process. The boards are CPython processes of many
boards each (bench/fleet.py: the board protocol over MQTT, not the firmware's main loop); the bridge is the real
`flickboard bridge` process; a display subscribed to every board's scoreboard takes the arrival times."""

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
from flickboard.core import journal
from flickboard.mqtt import EVERY_BOARD, SCOREBOARD, board_topic

from .common import MATCH, PLAYERS, ROOT, RULES, cpu_seconds, rss_kib, summary


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
