"""`make bench`: measure every figure, write bench/results.json and print the table of docs/performance.md.

    python -m bench.run [--quick] [--out FILE]
        [--only latency,host,replay,firmware,detection,scale,rp2,frozen,web,startup]

`--quick` runs each figure small (a minute in all); the full run takes a few minutes on two cores.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_runner import BOARD_HEAP

from flickboard import lifecycle
from flickboard.sim.broker import mosquitto

from . import firmware_bench, host_bench, latency, rp2_bench, scale, startup, web_bench
from .common import NODELAY, ROOT, machine, speed_probe

FIGURES = ("latency", "host", "replay", "firmware", "detection", "scale", "rp2", "frozen", "web", "startup")


def run_latency(quick: bool, tmp: Path) -> dict[str, Any]:
    n = 300 if quick else 2000
    with mosquitto(NODELAY) as b:
        disk = latency.fsync_probe(tmp / "disk", 3 if quick else 20)  # the disk's state, just before the chains
        out = latency.latency(b, tmp / "nodelay", n)
        out["disk"] = disk
        if os.path.isdir("/dev/shm"):  # the same chain with the journal where fsync does not wait for a disk
            with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
                out["memory_fs"] = latency.chain(b, Path(shm), "serial", n, board_id="lat-serial-shm")
    with mosquitto() as b:  # the broker's defaults, for comparison
        out["broker_defaults"] = latency.latency(b, tmp / "defaults", n, vias=("mqtt",))
    return out


def run_host(quick: bool, tmp: Path) -> dict[str, Any]:
    boards, per = (5, 400) if quick else (10, 1000)
    out = {"disk": _median_run(lambda: host_bench.throughput(boards, per, workdir=str(ROOT)))}
    if os.path.isdir("/dev/shm"):  # memory-backed: fsync costs nothing there, what is left is the bridge's own work
        out["memory_fs"] = _median_run(lambda: host_bench.throughput(boards, per, workdir="/dev/shm"))
    # At a game's pace every event is a batch of its own: an fsync, an ack and a scoreboard each.
    out["one_at_a_time"] = host_bench.throughput(boards, per // 2, workdir=str(ROOT), flood=False)
    return out


def _median_run(run: Callable[[], dict[str, Any]], runs: int = 3) -> dict[str, Any]:
    """The run with the median rate of `runs` (the machine is shared: one run says little), with every rate."""
    done = sorted((run() for _ in range(runs)), key=lambda r: r["events_per_s"])
    return {**done[len(done) // 2], "events_per_s_runs": [r["events_per_s"] for r in done]}


def run_replay(quick: bool, tmp: Path) -> dict[str, Any]:
    # The journal is written where fsync is cheap when there is such a place (only the rebuild is measured).
    return host_bench.replay(100 if quick else 1000, workdir="/dev/shm" if os.path.isdir("/dev/shm") else None)


# The whole profile's cost run on the 64-bit unix port: the smallest heap that runs it is its own figure (a tight heap
# would measure the collector, not the app); 128k stopped being enough when the beams' soft-IRQ state and the watch
# command came in, and 160k when the strip learned to count the pucks of a run (fb/strip.py).
WHOLE_PROFILE_HEAP = "192k"


def run_firmware(quick: bool, tmp: Path) -> dict[str, Any]:
    n, growth = (1000, 2000) if quick else (5000, 10000)
    out = {
        "hole_beam": firmware_bench.cost(n, growth, BOARD_HEAP, "hole"),
        "whole_profile": firmware_bench.cost(n, growth, WHOLE_PROFILE_HEAP, None),
    }
    if not quick:
        out["smallest_heap_hole_beam"] = firmware_bench.smallest_heap(("80k", "72k", "64k"), only="hole")
        out["smallest_heap_whole_profile"] = firmware_bench.smallest_heap(
            ("192k", "176k", "160k", "144k", "128k"), only=None
        )
    return out


def run_detection(quick: bool, tmp: Path) -> dict[str, Any]:
    return firmware_bench.detection_floor(trials=50 if quick else 500)


def run_scale(quick: bool, tmp: Path) -> dict[str, Any]:
    with mosquitto(NODELAY) as b:
        if quick:
            out = scale.scale(b, tmp, boards=20, events=20, rate=2.0, processes=2)
        else:
            out = scale.scale(b, tmp, boards=100, events=60, rate=1.0, processes=4)
    with mosquitto(NODELAY) as b:  # the cap of a bridge given no list: the boards past it
        out["admission"] = scale.admission(b, tmp, boards=scale.MAX_NEW_BOARDS + (2 if quick else 6), events=10)
    return out


def run_startup(quick: bool, tmp: Path) -> dict[str, Any]:
    return startup.measure(rounds=5 if quick else 15)


def run_rp2(quick: bool, tmp: Path) -> dict[str, Any]:
    # The emulated Pico: Node, rp2040js and the firmware images (make rp2 installs them, or says what is missing).
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "rp2"], check=True, stdout=subprocess.DEVNULL)
    return rp2_bench.measure(quick)


def run_frozen(quick: bool, tmp: Path) -> dict[str, Any]:
    # Figure 7's comparison with fb/ frozen into MicroPython: the image of make firmware-frozen FROZEN_BOARD=RPI_PICO,
    # which the bench does not build (many minutes); without it the table says so.
    subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "rp2"], check=True, stdout=subprocess.DEVNULL)
    return rp2_bench.measure_frozen(quick)


def run_web(quick: bool, tmp: Path) -> dict[str, Any]:
    with mosquitto(NODELAY) as b:
        if quick:
            return web_bench.web(b, tmp, pages=200, updates=20, flood=2000)
        return web_bench.web(b, tmp, pages=1000, updates=30)


RUNNERS: dict[str, Callable[[bool, Path], dict[str, Any]]] = {
    "latency": run_latency,
    "host": run_host,
    "replay": run_replay,
    "firmware": run_firmware,
    "detection": run_detection,
    "scale": run_scale,
    "rp2": run_rp2,
    "frozen": run_frozen,
    "web": run_web,
    "startup": run_startup,
}

WEB_P99_MS = 200  # figure 8: an update on every live page of a hall, at the 99th percentile

# Figure 7's targets (docs/performance.md, "7 The firmware on the rp2 port").
RP2_EDGE_CYCLES = 5000  # one IRQ edge, MicroPython's dispatch included: 40 µs at 125 MHz
RP2_LATENCY_US = 50  # the latest timestamp of an edge, asleep or busy
RP2_LARGEST_BLOCK = rp2_bench.LARGEST_BLOCK_MIN  # the largest free block a board keeps after a long game


def _n(x: float) -> str:
    """A count of cycles or bytes, with thousands separated."""
    return f"{round(x):,}"


def _cyc(x: float) -> str:
    return f"{_n(x)} cycles ({x / rp2_bench.CYCLES_PER_US:,.1f} µs)"


def rp2_rows(p: dict[str, Any]) -> list[str]:
    """Figure 7's rows: the firmware on the real rp2 port in the emulated Pico."""
    rows = []
    irq = p.get("irq")
    if irq:
        rows.append(
            f"| 7 | rp2: one IRQ edge, MicroPython's dispatch and the firmware's handler ({irq['handler']}) "
            f"| {_cyc(irq['cycles_per_edge'])} | a handler that does nothing {_n(irq['cycles_dispatch_floor'])}; "
            f"the same handler as bytecode {_n(irq['cycles_per_edge_python_handler'])} "
            f"| ≤ {RP2_EDGE_CYCLES:,} | {_ok(irq['cycles_per_edge'], RP2_EDGE_CYCLES)} |"
        )
        lat = irq["latency_asleep_us"]
        busy = p.get("busy", {}).get("latency_busy_us")
        worst = max(lat["max"], busy["max"] if busy else 0)
        during = f"; while the main loop works p50 {busy['p50']:.1f}, max {busy['max']:.1f} µs" if busy else ""
        rows.append(
            f"| 7 | rp2: edge → the ticks_us its handler stored | board asleep p50 {lat['p50']:.1f}, max "
            f"{lat['max']:.1f} µs{during} | – | max ≤ {RP2_LATENCY_US} µs | {_ok(worst, RP2_LATENCY_US)} |"
        )
    idle = p.get("idle")
    if idle:
        c, lk, b = idle["collected"], idle["locked"], idle["built"]
        rows.append(
            f"| 7 | rp2: an idle main-loop pass, the whole pico_w profile ({idle['beams']} beams, "
            f"{idle['hall_segments']} hall sensors), heap collected | {_cyc(c['cycles_per_pass'])}; with the strip's "
            f"scan (every 10 ms) {_cyc(c['cycles_per_scanning_pass'])}; {idle['bytes_allocated_per_pass']:g} B "
            f"allocated | heap locked {_n(lk['cycles_per_pass'])} / {_n(lk['cycles_per_scanning_pass'])}; heap as "
            f"built {_n(b['cycles_per_pass'])} / {_n(b['cycles_per_scanning_pass'])} | 0 B | "
            f"{_ok(idle['bytes_allocated_per_pass'], 0)} |"
        )
    boot = p.get("as_booted")
    if boot:
        rows.append(
            f"| 7 | rp2: the whole board idle, as booted (main.py, the watchdog, USB to a host) "
            f"| {boot['idle_cpu_share'] * 100:.1f} % of the CPU | – | – | – |"
        )
    ev = p.get("event")
    if ev:
        e = p.get("emit_path", {})
        parts = (
            f"encode {_n(e['cycles_encode'])}, outbox {_n(e['cycles_outbox'])}, USB write "
            f"{_n(e['cycles_usb_write'])}; {e['bytes_allocated_per_event']} B allocated"
            if e
            else "–"
        )
        rows.append(
            f"| 7 | rp2: one event, capture → outbox (two edges, detector, encoder, outbox, USB write), "
            f"{ev['events']} passes | {_cyc(ev['cycles_per_event'])} | {parts} | – | – |"
        )
    for name, what in (
        ("pico_w", "a Pico W (160 KB)"),
        ("esp32", "an ESP32 (110 KB)"),
        ("esp32_usb_only", "an ESP32 (110 KB), USB only"),
    ):
        m = p.get("budget", {}).get(name)
        if not m:
            continue
        live = m["live_bytes"]
        mqtt = sum(live.get(k, 0) for k in ("mqtt_modules", "mqtt_client", "mqtt_window"))
        held = f"live {_n(m['live_total'])} B (modules {_n(live['modules'])}" + (
            f", MQTT {_n(mqtt)})" if m["mqtt"] else ")"
        )
        state = f"free {_n(m['free_end'])} B, largest block {_n(m['largest_free_block'])} B"
        if not m["fits"]:
            state = f"out of memory ({m['out_of_memory_in']})"
        block = m["largest_free_block"] if m["fits"] else None
        rows.append(
            f"| 7 | rp2: memory after {m['events']} events un-acked (64 kept)"
            f"{', the MQTT window full' if m['mqtt'] else ''}, in the heap of {what} | {state} | {held} "
            f"| largest block ≥ {RP2_LARGEST_BLOCK:,} B | {_ok(block, RP2_LARGEST_BLOCK, below=False)} |"
        )
    return rows


def frozen_rows(f: dict[str, Any]) -> list[str]:
    """Figure 7, frozen: the firmware on MicroPython with fb/ frozen in, beside the stock image with .mpy files."""
    what = "rp2, fb/ frozen into MicroPython"
    if "missing" in f:
        return [f"| 7 | {what} | not measured: {f['missing']} | – | – | – |"]
    fr, st = f["frozen"], f["stock"]

    rows = []
    mods_f, mods_s = sum(fr["modules"].values()), sum(st["modules"].values())
    rows.append(
        f"| 7 | {what}: heap the firmware's {len(fr['modules'])} modules take once imported "
        f"| {_n(mods_f)} B | stock image, .mpy files: {_n(mods_s)} B ({_n(mods_s - mods_f)} B saved) | – | – |"
    )
    a, b = fr["start"], st["start"]
    rows.append(
        f"| 7 | {what}: free heap after the app's start (imports, configuration, the whole pico_w profile) "
        f"| {_n(a['free_after_start'])} B (live {_n(a['live_after_start'])} B) "
        f"| stock: {_n(b['free_after_start'])} B (live {_n(b['live_after_start'])} B) | – | – |"
    )
    for key, heap in (("pico_w", "a Pico W (160 KB)"), ("esp32", "an ESP32 (110 KB)"), ("esp32_usb_only", None)):
        if key not in fr["budget"]:
            continue
        m, s0 = fr["budget"][key], st["budget"][key]
        label = f"the heap of {heap}, USB and MQTT" if heap else "the heap of an ESP32 (110 KB), USB only"

        def state(x: dict[str, Any]) -> str:
            if not x["fits"]:
                return f"out of memory ({x['out_of_memory_in']})"
            free, block = _n(x["free_end"]), _n(x["largest_free_block"])
            return f"free {free} B, largest block {block} B, live {_n(x['live_total'])} B"

        block = m["largest_free_block"] if m["fits"] else None
        rows.append(
            f"| 7 | {what}: memory after {m['events']} events un-acked, in {label} | {state(m)} | stock: {state(s0)} "
            f"| largest block ≥ {RP2_LARGEST_BLOCK:,} B | {_ok(block, RP2_LARGEST_BLOCK, below=False)} |"
        )
    fi, si = fr["idle"]["collected"], st["idle"]["collected"]
    rows.append(
        f"| 7 | {what}: an idle main-loop pass, whole profile, heap collected "
        f"| {_cyc(fi['cycles_per_pass'])}; scanning the strip {_cyc(fi['cycles_per_scanning_pass'])} "
        f"| stock: {_cyc(si['cycles_per_pass'])}; {_cyc(si['cycles_per_scanning_pass'])} | – | – |"
    )
    rows.append(
        f"| 7 | {what}: start — MicroPython's boot to USB, then the app's start (imports, configuration, App) "
        f"| {fr['boot']['usb_ms']} ms, then {a['start_ms']} ms (imports {a['import_us'] / 1000:,.1f} ms) "
        f"| stock: {st['boot']['usb_ms']} ms, then {b['start_ms']} ms (imports {b['import_us'] / 1000:,.1f} ms) "
        f"| – | – |"
    )
    fa, sa = fr["as_booted"], st["as_booted"]
    rows.append(
        f"| 7 | {what}: the whole board as booted, idle (main.py, the watchdog, USB to a host) "
        f"| {fa['idle_cpu_share'] * 100:.1f} % of the CPU, {_n(fa['heap_free'])} B free "
        f"| stock: {sa['idle_cpu_share'] * 100:.1f} %, {_n(sa['heap_free'])} B free | – | – |"
    )
    return rows


def _ok(value: float | None, target: float, below: bool = True) -> str:
    if value is None:
        return "no"
    return "yes" if (value <= target if below else value >= target) else "**no**"


def table(r: dict[str, Any]) -> str:
    """The markdown table of docs/performance.md."""
    rows = ["| # | figure | measured | beside it | target | met |", "|---|---|---|---|---|---|"]
    lat = r.get("latency")
    if lat:
        floor = lat["mqtt_qos1_round_trip"]["round_trip_ms"]
        for via in ("mqtt", "serial"):
            if via in lat:
                m = lat[via]["latency_ms"]
                rows.append(
                    f"| 1 | sensor → scoreboard over {via}, {lat[via]['events']} events, lost {lat[via]['lost']} "
                    f"| p50 {m['p50']} ms, p99 {m['p99']} ms | MQTT QoS 1 round trip p50 {floor['p50']} ms, "
                    f"p99 {floor['p99']} ms (×{lat[via]['p99_over_floor_p99']}) | p99 ≤ 10 ms "
                    f"| {_ok(m['p99'], 10)} |"
                )
        if "memory_fs" in lat:
            m = lat["memory_fs"]["latency_ms"]
            rows.append(
                f"| 1 | the same over serial, the journal on a memory file system (no disk wait) | p50 {m['p50']} ms, "
                f"p99 {m['p99']} ms | – | – | – |"
            )
        if "disk" in lat:
            m = lat["disk"]["fsync_ms"]
            rows.append(
                f"| 1 | the disk under the journal, just before: a line appended and fsync'd every 10 ms, "
                f"{m['n']} times "
                f"| p50 {m['p50']} ms, p99 {m['p99']} ms, max {m['max']} ms ({lat['disk']['over_10_ms']} over 10 ms) "
                "| – | – | – |"
            )
        if "broker_defaults" in lat:
            m = lat["broker_defaults"]["mqtt"]["latency_ms"]
            rows.append(
                f"| 1 | the same over mqtt, Mosquitto without `set_tcp_nodelay` | p50 {m['p50']} ms, p99 {m['p99']} ms "
                f"| (the first mqtt line) | – | – |"
            )
    host = r.get("host")
    if host:
        d = host["disk"]
        rows.append(
            f"| 2 | bridge with the fsync'd journal, {d['boards']} boards flooding it, {d['events']} events, "
            f"{d['matches']} club matches (batches of {d['events_per_batch_mean']} events on average) "
            f"| {d['events_per_s']} events/s, the median of {len(d.get('events_per_s_runs', [1]))} runs "
            f"({', '.join(map(str, d.get('events_per_s_runs', [])))}); first tenth {d['events_per_s_first_tenth']}, "
            f"last {d['events_per_s_last_tenth']} | journal appends alone, one fsync each, "
            f"{d['journal_alone_appends_per_s']}/s (×{d['ratio_to_journal_alone']}) | ≥ 5,000/s "
            f"| {_ok(d['events_per_s'], 5000, below=False)} |"
        )
        if "memory_fs" in host:
            m = host["memory_fs"]
            rows.append(
                f"| 2 | the same on a memory file system (no disk wait) | {m['events_per_s']} events/s "
                f"| journal alone {m['journal_alone_appends_per_s']}/s | – | – |"
            )
        if "one_at_a_time" in host:
            o = host["one_at_a_time"]
            rows.append(
                f"| 2 | one event at a time (a game's pace: an fsync, an ack and a scoreboard each) "
                f"| {o['events_per_s']} events/s | journal alone {o['journal_alone_appends_per_s']}/s | – | – |"
            )
        rows.append(
            f"| 2 | bridge memory | RSS {d['rss_start_kib']} → {d['rss_end_kib']} KiB, "
            f"{d['rss_growth_kib_per_1000_events']:+} KiB per 1,000 events | – | flat | "
            f"{_ok(d['rss_growth_kib_per_1000_events'], 100)} |"
        )
    rp = r.get("replay")
    if rp:
        rows.append(
            f"| 3 | replay: {rp['games']} games, {rp['entries']} entries, to the game state "
            f"| {rp['rebuild_s_best']} s | reading and checking the file alone {rp['read_and_verify_alone_s']} s "
            f"(×{rp['ratio_to_read_alone']}) "
            f"| ≤ 1 s | {_ok(rp['rebuild_s_best'], 1)} |"
        )
    fw = r.get("firmware")
    if fw:
        h = fw["hole_beam"]
        w = fw.get("whole_profile") or fw["whole_profile_128k"]  # (the key of runs before the heap was raised)
        rows.append(
            f"| 4 | firmware, one event capture → detector → encoder → outbox (MicroPython unix port) "
            f"| {h['us_per_event']} µs | an idle main loop pass {h['us_per_idle_loop_pass']} µs "
            f"(whole profile {w['us_per_idle_loop_pass']} µs) | – | – |"
        )
        rows.append(
            f"| 4 | bytes allocated per event / per idle pass | {h['bytes_allocated_per_event']} B "
            f"/ {h['bytes_allocated_per_idle_pass']} B | – | – | – |"
        )
        rows.append(
            f"| 4 | heap growth over {h['growth_events']} events | {h['heap_growth_after_first_500_bytes']} B after "
            f"the first 500 ({h['heap_growth_bytes']} B with them) | live heap {h['heap_live_bytes']} B of "
            f"{h['heap_total_bytes']} | 0 | {_ok(h['heap_growth_after_first_500_bytes'], 0)} |"
        )
        rows.append(
            f"| 4 | live heap (modules + app) | hole beam {h['heap_live_peak_bytes']} B; whole profile "
            f"{w['heap_live_peak_bytes']} B | modules alone {h['heap_modules_bytes']} B | the hole "
            f"beam fits {BOARD_HEAP[:-1]} KiB (64-bit objects) | "
            f"{_ok(h['heap_live_peak_bytes'], int(BOARD_HEAP[:-1]) * 1024)} |"
        )
        if "smallest_heap_hole_beam" in fw:
            smallest = f"hole beam {fw['smallest_heap_hole_beam']}, whole profile {fw['smallest_heap_whole_profile']}"
            rows.append(f"| 4 | smallest heap that runs it | {smallest} | – | – | – |")
    det = r.get("detection")
    if det:
        f = det["glitch_filter_min_pulse_us"]
        parts = ", ".join(
            f"filter {k} µs → {v['shortest_always_detected_us']} µs"
            for k, v in sorted(f.items(), key=lambda kv: int(kv[0]))
        )
        polls = ", ".join(
            f"every {int(k) // 1000} ms → {v['shortest_always_detected_us'] or 'none of the widths'}"
            for k, v in sorted(det["polled_every_us"].items(), key=lambda kv: int(kv[0]))
        )
        best = det["shortest_always_detected_us_default_filter"]
        rows.append(
            f"| 5 | shortest beam break detected in every one of {det['trials_per_width']} tries (edges ±"
            f"{det['irq_latency_jitter_us']} µs) | {best} µs with the default 200 µs filter ({parts}) "
            f"| a loop polling the pin: {polls} | ≤ 500 µs | {_ok(best, 500)} |"
        )
    sc = r.get("scale")
    if sc:
        m = sc["latency_ms"] or {}
        listed = " listed (`--boards`, as a hall runs them)" if sc.get("listed") else ""
        rows.append(
            f"| 6 | {sc['boards']} boards{listed}, one broker, one bridge, {sc['events']} events "
            f"| p50 {m.get('p50')} ms, p99 {m.get('p99')} ms, lost {sc['lost']}, journaled twice "
            f"{sc['duplicates_journaled']} | bridge CPU {sc['bridge_cpu_percent_of_one_core']} % of a core, RSS "
            f"{sc['bridge_rss_peak_kib']} KiB | lost 0 | {_ok(sc['lost'] + sc['duplicates_journaled'], 0)} |"
        )
        if sc.get("admission"):
            rows.append(admission_row(sc["admission"]))
    if r.get("rp2"):
        rows += rp2_rows(r["rp2"])
    if r.get("frozen"):
        rows += frozen_rows(r["frozen"])
    w = r.get("web")
    if w:
        m, first, fl, rss = (
            w["every_page_ms"] or {},
            w["first_page_ms"] or {},
            w["mqtt_floor_ms"] or {},
            w["server_rss_kib"],
        )
        rows.append(
            f"| 8 | web: {w['pages']:,} live pages of one board (SSE), {w['updates']} scoreboards of "
            f"{w['payload_bytes']:,} B: broker → every page has it, lost {w['lost']} "
            f"| p50 {m.get('p50')} ms, p99 {m.get('p99')} ms, max {m.get('max')} ms "
            f"| the first page p50 {first.get('p50')} ms; one MQTT subscriber p50 {fl.get('p50')} ms, p99 "
            f"{fl.get('p99')} ms; server RSS {rss['idle']:,} KiB idle, {rss['pages_open']:,} KiB with the pages "
            f"({w['server_rss_kib_per_page']} KiB a page) | p99 < {WEB_P99_MS} ms "
            f"| {_ok(m.get('p99'), WEB_P99_MS - 0.001) if w['lost'] == 0 else '**no**'} |"
        )
    st = r.get("startup")
    if st:
        rows += startup_rows(st)
    return "\n".join(rows)


def admission_row(a: dict[str, Any]) -> str:
    """Figure 6's second row: a bridge given no list of boards, and the boards past its cap."""
    refused = a["refused_boards"]
    held = (
        a["taken"] == a["cap"]
        and a["taken_acked_fully"] == a["taken"]
        and refused == a["boards"] - a["cap"]
        and a["refused_journaled"] == 0
        and a["refused_acked"] == 0
        and a["refused_said_once"] == refused
        and (a["health_refused_messages"] or 0) > 0
    )
    return (
        f"| 6 | a bridge given no list: {a['boards']} new boards, {a['events_per_board']} messages each "
        f"| {a['taken']} taken (every message acked); the other {refused} refused: {a['refused_journaled']} "
        f"journaled, {a['refused_acked']} acked, {a['health_refused_messages']} messages counted in the health "
        f"document, each board said once in the log ({a['refused_said_once']} of {refused}) "
        f"| the cap: {a['cap']} new boards a run | the boards past the cap refused, counted and said "
        f"| {'yes' if held else '**no**'} |"
    )


def startup_rows(st: dict[str, Any]) -> list[str]:
    """Figure 9: each command's time, start to end, beside `python -c pass`."""
    c = st["commands"]
    floor = c["python -c pass"]["p50_ms"]
    rows = []
    for name, m in c.items():
        if name == "python -c pass":
            continue
        command = name.split(" (")[0]
        note = f" ({name.split(' (', 1)[1]}" if " (" in name else ""
        rows.append(
            f"| 9 | start-up: `flickboard {command}`{note}, {st['rounds']} runs | p50 {m['p50_ms']} ms, p90 "
            f"{m['p90_ms']} ms | `python -c pass` p50 {floor} ms (×{m['over_floor']}) | < {st['target_ms']} ms "
            f"| {_ok(m['p50_ms'], st['target_ms'] - 0.05)} |"
        )
    return rows


def met_line(markdown: str) -> str:
    """Which targets this run met, from the table's last column."""
    held, missed = 0, []
    for row in markdown.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[-1] == "yes":
            held += 1
        elif cells[-1] != "–":
            missed.append(f"{cells[0]} ({cells[1].split(', ')[0]})")
    if not missed:
        return f"Every target met in this run ({held} of {held})."
    return f"{held} of {held + len(missed)} targets met in this run; not met: " + "; ".join(missed) + "."


def speed_line(probes: dict[str, float]) -> str:
    """One sentence on how fast the machine ran during the figures (bench/common.speed_probe)."""
    each = ", ".join(f"{name} {ms} ms" for name, ms in probes.items())
    spread = round(max(probes.values()) / min(probes.values()), 2) if probes else 1
    return (
        f"The machine's speed before each figure (one fixed piece of Python work, best of 5; lower is faster): "
        f"{each}. The slowest is ×{spread} the fastest."
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small runs (a minute in all)")
    ap.add_argument("--only", help="comma-separated figures: " + ",".join(FIGURES))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results.json"))
    args = ap.parse_args(argv)
    with lifecycle.interrupting():  # SIGINT, SIGTERM, SIGHUP: every figure's broker, boards and bridge stop with it
        lifecycle.follow_parent()  # and when make is killed, so is the bench
        try:
            return _run(args, ap)
        except KeyboardInterrupt:
            print("bench: stopped", file=sys.stderr)
            return 130


def _merged(out: Path, results: dict[str, Any], chosen: list[str]) -> dict[str, Any]:
    """This run's figures over the ones `out` kept from earlier runs (a figure measured again replaces its old one)."""
    try:
        earlier = json.loads(out.read_text())
    except (OSError, ValueError):
        return results
    if not isinstance(earlier, dict):
        return results
    merged = {k: v for k, v in earlier.items() if k in FIGURES and k not in chosen}
    merged.update(results)
    old_when = earlier.get("when")
    older = {n: old_when for n in FIGURES if n in earlier and n not in chosen}
    merged["measured_at"] = {**older, **(earlier.get("measured_at") or {}), **results["measured_at"]}
    for key in ("seconds", "speed_probe_ms"):
        merged[key] = {**(earlier.get(key) or {}), **results[key]}
    return merged


def _run(args: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    chosen = args.only.split(",") if args.only else list(FIGURES)
    unknown = set(chosen) - set(FIGURES)
    if unknown:
        ap.error(f"unknown figure {sorted(unknown)[0]!r}: choose from {', '.join(FIGURES)}")
    results: dict[str, Any] = {
        "when": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": args.quick,
        "machine_before": machine(),
        "seconds": {},
        "speed_probe_ms": {},  # bench/common.speed_probe before each figure: lower is faster
    }
    failed: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="flickboard-bench-") as tmp:
        for name in chosen:
            print(f"==> {name}", file=sys.stderr, flush=True)
            results["speed_probe_ms"][name] = speed_probe()
            t0 = time.monotonic()
            try:
                results[name] = RUNNERS[name](args.quick, Path(tmp) / name)
            except (RuntimeError, OSError, subprocess.SubprocessError, AssertionError, ValueError) as e:
                # One figure that cannot be measured does not cost the others: it is said and left out of the table.
                why = " ".join(str(e).split())[:600]
                failed[name] = why
                print(f"bench: figure {name!r} could not be measured: {why}", file=sys.stderr, flush=True)
            results["seconds"][name] = round(time.monotonic() - t0, 1)
    results["speed_probe_ms"]["end"] = speed_probe()
    results["machine_after"] = machine()
    if failed:
        results["failed"] = failed
    results["measured_at"] = dict.fromkeys((n for n in chosen if n in results), results["when"])
    if args.only:  # the other figures stay as their last run measured them, each with its own date
        results = _merged(Path(args.out), results, chosen)
    Path(args.out).write_text(json.dumps(results, indent=1) + "\n")
    markdown = table(results)
    print(markdown)
    print("\n" + met_line(markdown))
    print("\n" + speed_line(results["speed_probe_ms"]))
    print(
        f"\n(written to {args.out}; load average before {results['machine_before']['load_avg_1_5_15']}, "
        f"after {results['machine_after']['load_avg_1_5_15']})"
    )
    if failed:
        print(f"\nbench: not measured: {', '.join(failed)} (the reasons are above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
