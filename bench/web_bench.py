"""Figure 8: `flickboard web` with a hall's worth of live pages. The real `flickboard web` process follows one board
on a live Mosquitto; this process opens `pages` Server-Sent Event streams to it at once (raw asyncio sockets, the
lightest client there is, not browsers), publishes scoreboard updates on the broker, and times, per update, how long
until every page has it. Beside it, the floor: the same update reaching one plain MQTT subscriber.

    python -m bench.run --only web            # 1,000 pages, 30 updates; then 10,000 streams from one address
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import resource
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from e2e import FLICKBOARD
from paho.mqtt.enums import CallbackAPIVersion

from flickboard import lifecycle
from flickboard.core.scoreboard import scoreboard_doc
from flickboard.core.session import Session
from flickboard.mqtt import SCOREBOARD, board_topic
from flickboard.rules.pichenotte import Pichenotte
from flickboard.sim.broker import free_port
from flickboard.sim.random_game import random_match

from .common import PLAYERS, RULES, rss_kib, summary

BOARD = "web-bench"
MARK = re.compile(rb'"bench_seq":\s*(\d+)')  # each update's own number, in the scoreboard document
SETTLE_S = 0.25  # between updates: every page has the previous one before the next is published


def realistic_doc(tmp: Path) -> dict[str, Any]:
    """A real scoreboard document (host/core/scoreboard.py) of a game well under way, a few kB like the bridge's."""
    text = random_match(4, RULES, list(PLAYERS), match="games:8")
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("[")][:60]
    session = Session.create(str(tmp / "bench.jsonl"), Pichenotte.create(RULES, list(PLAYERS), match="games:8"))
    try:
        for line in lines:
            session.submit(line)
        link = {"online": True, "in_sync": True, "processed": 0}
        return scoreboard_doc(BOARD, session, link, "2026-11-24T00:00:00Z", "flickboard-bridge")
    finally:
        session.close()


class Pages:
    """`n` live pages, each one SSE stream read as it comes: when each update (its `bench_seq`) reached each page."""

    def __init__(self, port: int, n: int) -> None:
        self.port, self.n = port, n
        self.arrived: dict[int, list[float]] = {}  # update -> arrival time at each page that has it
        self.complete: dict[int, asyncio.Event] = {}
        self.failed: list[str] = []

    def event(self, seq: int) -> asyncio.Event:
        return self.complete.setdefault(seq, asyncio.Event())

    async def page(self, i: int = 0) -> None:
        try:  # each page from its own loopback address, as each TV or phone has its own (one device: a few pages)
            source = (f"127.0.{2 + i // 250}.{1 + i % 250}", 0)
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, local_addr=source)
        except OSError as e:
            self.failed.append(f"connect: {e}")
            return
        writer.write(f"GET /api/{BOARD}/stream HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode())
        seen: set[int] = set()
        tail = b""
        try:
            while data := await reader.read(1 << 16):
                now = time.monotonic()
                buf = tail + data
                for m in MARK.finditer(buf):
                    seq = int(m.group(1))
                    if seq not in seen:
                        seen.add(seq)
                        got = self.arrived.setdefault(seq, [])
                        got.append(now)
                        if len(got) == self.n:
                            self.event(seq).set()
                tail = buf[-32:]
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


class Floor:
    """One plain MQTT subscriber to the board's scoreboard: when each update reached it (the broker's own part)."""

    def __init__(self, port: int) -> None:
        self.arrived: dict[int, float] = {}
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"web-bench-floor-{uuid.uuid4().hex[:6]}")
        self.c.on_connect = lambda c, *_: c.subscribe(board_topic(BOARD, SCOREBOARD), qos=1)
        self.c.on_message = self._message
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.monotonic()
        m = MARK.search(bytes(msg.payload))
        if m:
            self.arrived.setdefault(int(m.group(1)), now)

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def _raise_file_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def _get(port: int, path: str) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return int(r.status)
    except OSError:
        return 0


def web(broker: Any, tmp: Path, pages: int = 1000, updates: int = 30, flood: int = 10_000) -> dict[str, Any]:
    """`pages` live pages of one board, `updates` scoreboards published one after another; then one device tries to
    open `flood` streams from one address."""
    _raise_file_limit(pages + 512)
    tmp.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tmp) as work:
        doc = realistic_doc(Path(work))
    publisher = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"web-bench-pub-{uuid.uuid4().hex[:6]}")
    publisher.connect("127.0.0.1", broker.port)
    publisher.loop_start()
    topic = board_topic(BOARD, SCOREBOARD)

    def publish(seq: int) -> float:
        payload = json.dumps({**doc, "bench_seq": seq}).encode()
        at = time.monotonic()
        publisher.publish(topic, payload, qos=1, retain=True)
        return at

    publish(0)
    port = free_port()
    log = (tmp / "web.log").open("wb")
    url = f"mqtt://127.0.0.1:{broker.port}"
    server = lifecycle.spawn(
        [FLICKBOARD, "web", "--mqtt", url, "--port", str(port), "--board", BOARD],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    floor = Floor(broker.port)
    try:
        deadline = time.monotonic() + 30
        while _get(port, f"/api/{BOARD}/scoreboard") != 200:
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"flickboard web did not start: {(tmp / 'web.log').read_text()[-500:]}")
            time.sleep(0.1)
        rss_idle = rss_kib(server.pid)[0]
        out = asyncio.run(_measure(port, pages, updates, publish, floor))
        rss_open, rss_peak = rss_kib(server.pid)
        out["flood"] = _flood(port, flood, server.pid)
    finally:
        floor.close()
        publisher.loop_stop()
        publisher.disconnect()
        lifecycle.end(server, 15)
        log.close()
    said = (tmp / "web.log").read_text(errors="replace")
    return {
        **out,
        "payload_bytes": len(json.dumps({**doc, "bench_seq": 0})),
        "server_rss_kib": {"idle": rss_idle, "pages_open": rss_open, "peak": rss_peak},
        "server_rss_kib_per_page": round((rss_open - rss_idle) / pages, 1),
        "server_said_traceback": "Traceback" in said,
    }


async def _measure(port: int, n: int, updates: int, publish: Any, floor: Floor) -> dict[str, Any]:
    pages = Pages(port, n)
    t0 = time.monotonic()
    tasks = [asyncio.create_task(pages.page(i)) for i in range(n)]
    try:
        async with asyncio.timeout(120):
            await pages.event(0).wait()  # every page has the retained scoreboard: all are open and live
        opened = time.monotonic() - t0
        loop = asyncio.get_running_loop()
        lat: list[float] = []
        floor_lat: list[float] = []
        first_page: list[float] = []
        lost = 0
        for seq in range(1, updates + 1):
            at = await loop.run_in_executor(None, publish, seq)
            try:
                async with asyncio.timeout(10):
                    await pages.event(seq).wait()
            except TimeoutError:
                lost += n - len(pages.arrived.get(seq, []))
                continue
            got = pages.arrived[seq]
            lat.append((max(got) - at) * 1000)
            first_page.append((min(got) - at) * 1000)
            if seq in floor.arrived:
                floor_lat.append((floor.arrived[seq] - at) * 1000)
            await asyncio.sleep(SETTLE_S)
    finally:
        for t in tasks:
            t.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "pages": n,
        "updates": updates,
        "pages_failed": len(pages.failed),
        "open_all_s": round(opened, 2),
        "lost": lost,
        "every_page_ms": summary(lat) if lat else None,
        "first_page_ms": summary(first_page) if first_page else None,
        "mqtt_floor_ms": summary(floor_lat) if floor_lat else None,
    }


def _flood(port: int, n: int, pid: int) -> dict[str, Any]:
    """One device opens `n` event streams, one after the other, from one address (the attack of issue 34 opened
    10,000 in 21 s): how many are taken, how fast the rest are refused, the server's memory after, and whether a
    page from another address still gets its stream."""
    import socket

    rss_before = rss_kib(pid)[0]
    held: list[socket.socket] = []
    codes: dict[str, int] = {}
    slowest = 0.0
    t0 = time.monotonic()
    try:
        for _ in range(n):
            t = time.monotonic()
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(f"GET /api/{BOARD}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            head = s.recv(64)
            slowest = max(slowest, time.monotonic() - t)
            code = head.split(b" ", 2)[1].decode() if head.count(b" ") >= 2 else "none"
            codes[code] = codes.get(code, 0) + 1
            if code == "200":
                held.append(s)
            else:
                s.close()
        took = time.monotonic() - t0
        rss_flooded = rss_kib(pid)[0]
        other = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.7", 0))
        other.sendall(f"GET /api/{BOARD}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        other_ok = other.recv(64).startswith(b"HTTP/1.1 200")
        other.close()
    finally:
        for s in held:
            s.close()
    return {
        "streams_tried": n,
        "answers": codes,
        "took_s": round(took, 2),
        "slowest_answer_ms": round(slowest * 1000, 1),
        "server_rss_kib": {"before": rss_before, "after": rss_flooded},
        "another_address_gets_its_stream": other_ok,
    }


def self_check() -> None:  # pragma: no cover - `python -m bench.web_bench`: a quick run by hand
    from flickboard.sim.broker import mosquitto

    with mosquitto() as b, tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(web(b, Path(tmp), pages=200, updates=5, flood=2000), indent=1))


if __name__ == "__main__":
    threading.current_thread().name = "web-bench"
    self_check()
