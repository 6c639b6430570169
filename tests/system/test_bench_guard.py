"""The performance figures of `make bench` (docs/performance.md), small and fast, so that a regression shows here.

Bounds are generous on purpose (a shared, busy machine): they catch a pipeline that loses events, stalls, allocates
where it must not, or stops detecting pulses, not a few percent of speed. The real numbers come from `make bench`.
Figure 7 (the firmware on the emulated Pico) is counted in emulated cycles, which do not depend on the machine: its
bounds are the figure's targets.
"""

from __future__ import annotations

import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from firmware_runner import BOARD_HEAP
from rp2_board import flashed

from flickboard.sim.broker import mosquitto

ROOT = Path(__file__).resolve().parents[2]

from bench import firmware_bench, host_bench, latency, rp2_bench  # noqa: E402
from bench.common import speed_probe  # noqa: E402
from bench.run import NODELAY, RP2_EDGE_CYCLES, RP2_LATENCY_US, speed_line, table  # noqa: E402
from flickboard.board.links import MqttLink  # noqa: E402
from flickboard.sim.rp2 import Pico  # noqa: E402


def renders(figure: str, result: dict[str, Any]) -> None:
    """The markdown table of `make bench` shows the figure: a header, a rule and at least one row of numbers."""
    rows = table({figure: result}).splitlines()
    assert len(rows) >= 3 and rows[1].startswith("|---") and all(row.startswith("| ") for row in rows[2:]), rows
    assert "None" not in "".join(rows[2:]), rows


def test_sensor_to_scoreboard_over_mqtt_and_serial_loses_nothing(tmp_path: Path) -> None:
    """Figure 1: the simulated board (real firmware, MicroPython) -> bridge process -> retained scoreboard. The journal
    goes where a flush does not wait for a disk, when there is such a place: the guard is for the chain's own stalls,
    and a shared machine's disk can hold a flush for half a second now and then (docs/performance.md, figure 1)."""
    shm = Path("/dev/shm")
    with (
        tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else tmp_path) as where,
        mosquitto(NODELAY) as b,
    ):
        r = latency.latency(b, Path(where), events=120, spacing_ms=10)
    renders("latency", r)
    assert r["mqtt_qos1_round_trip"]["round_trip_ms"]["n"] == 120
    for via in ("mqtt", "serial"):
        assert r[via]["events"] == 120 and r[via]["lost"] == 0, r[via]
        assert r[via]["latency_ms"]["n"] == 120
        assert 0 < r[via]["latency_ms"]["p50"] < 100, r[via]
        assert r[via]["latency_ms"]["p99"] < 500, r[via]


def test_every_mqtt_connection_sends_small_packets_at_once(tmp_path: Path) -> None:
    """The bridge's and the board's MQTT sockets set TCP_NODELAY: without it each event waits tens of ms for a
    delayed TCP acknowledgement (docs/performance.md, figure 1)."""
    from fb.mqtt_link import Link

    with mosquitto() as b:
        link = MqttLink(b.url, "nodelay-bridge", None, lambda board, payload: None)
        link.start()
        try:
            assert link.wait_ready(10)
            sock = link.client.socket()
            assert sock is not None
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        finally:
            link.stop()
        board = Link("nodelay", b.host, b.port, keepalive=10)
        deadline = time.monotonic() + 10
        while board.client._sock is None and time.monotonic() < deadline:
            board.poll(int(time.monotonic() * 1000) & 0x3FFFFFFF)
            time.sleep(0.01)
        assert board.client._sock is not None, "the board's client never opened a socket"
        assert board.client._sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        board.client.disconnect()


def test_bridge_with_the_durable_journal_takes_every_event(tmp_path: Path) -> None:
    """Figure 2: several boards' events through one in-process bridge, each journaled (fsync), folded and acked."""
    r = host_bench.throughput(boards=3, per_board=400, workdir=str(tmp_path))
    one = host_bench.throughput(boards=2, per_board=200, workdir=str(tmp_path), flood=False)
    renders("host", {"disk": r, "one_at_a_time": one})
    assert r["events"] == 3 * 401
    assert r["matches"] > 3 and r["matches_played_to_the_end"] == r["matches"] - 3, "club matches, one after another"
    assert r["journaled"] == r["events"] and r["boards_acked_to_the_last_event"] == 3, r
    assert r["events_applied_by_rules"] == r["events"] and r["journals_held_for_review"] == 0, r
    assert r["events_per_batch_mean"] > 1 and r["acks_sent"] < r["events"], "a flood is taken in batches"
    assert one["events_per_batch_mean"] == 1 and one["acks_sent"] == one["events"], "one fsync and ack per event"
    assert one["journaled"] == one["events"] and one["boards_acked_to_the_last_event"] == 2, one
    assert r["events_per_s"] > 50 and one["events_per_s"] > 50, (r, one)
    assert r["journal_alone_appends_per_s"] > 50, r


def test_replay_rebuilds_the_same_state(tmp_path: Path) -> None:
    """Figure 3, small: a journal of 20 games rebuilt gives what the live session had."""
    r = host_bench.replay(20, workdir=str(tmp_path), repeats=1)
    renders("replay", r)
    assert r["same_totals_as_live"] is True
    assert r["games_finished_in_state"] == 20
    assert r["rebuild_s_best"] < 30, r


def test_firmware_event_path_in_a_board_sized_heap() -> None:
    """Figure 4, small: the app under MicroPython in a heap the size of the app (BOARD_HEAP, on the 64-bit unix
    port); the idle loop allocates nothing, the heap does not grow, nothing is dropped."""
    r = firmware_bench.cost(events=500, growth=2000, heapsize=BOARD_HEAP, only="hole")
    renders("firmware", {"hole_beam": r, "whole_profile": r})
    assert r["dropped"] == 0
    assert r["events_sent"] == 1 + 200 + 500 + 2 + 1000 + 2000 + 1, "hello, every event once, the first heartbeat"
    assert r["bytes_allocated_per_idle_pass"] == 0, r
    assert 0 < r["bytes_allocated_per_event"] < 16384, r
    assert r["heap_growth_after_first_500_bytes"] <= 0, r
    assert r["heap_live_peak_bytes"] < int(BOARD_HEAP[:-1]) * 1024
    assert 0 < r["us_per_event"] < 20000, r


def test_detection_floor_with_the_default_glitch_filter() -> None:
    """Figure 5, small: with the default 200 µs filter every pulse from 300 µs up is a pass, every one up to 150 µs
    is rejected; a 16 ms polling loop misses most short breaks."""
    r = firmware_bench.detection_floor(widths=(50, 150, 300, 500, 1000), filters=(200,), trials=30)
    renders("detection", r)
    row = r["glitch_filter_min_pulse_us"]["200"]["detected_of_trials"]
    assert row["50"] == 0 and row["150"] == 0, row
    assert row["300"] == row["500"] == row["1000"] == 30, row
    assert r["shortest_always_detected_us_default_filter"] == 300
    polled = r["polled_every_us"]["16000"]["detected_of_trials"]
    assert polled["1000"] < 30, polled


def test_the_speed_probe_times_its_work_and_the_run_reports_it() -> None:
    """`make bench` takes the machine's speed before each figure, so that a slow hour shows as such."""
    ms = speed_probe(rounds=2)
    assert 0 < ms < 10_000
    line = speed_line({"latency": 10.0, "replay": 20.0})
    assert "latency 10.0 ms" in line and "replay 20.0 ms" in line and "×2.0" in line


def test_firmware_on_the_rp2_port_in_cycles() -> None:
    """Figure 7, small: the firmware on the real rp2 port in the emulated Pico, counted in emulated cycles (the same
    on any machine, however busy). One IRQ edge stays under its target with the viper handler, every edge's
    timestamp is taken within the latency target, an idle pass allocates nothing, an event's path costs what it
    should, and the table shows all of it."""
    with Pico(flash=flashed("pico_w"), pace="fast") as board:
        rp2_bench.prepare(board)
        irq = rp2_bench.irq_edge(board, edges=40, batches=1)
        idle = rp2_bench.idle_pass(board, passes=120)
        event = rp2_bench.event_cost(board, irq["cycles_per_edge"], events=10)
        emit = rp2_bench.emit_path(board, n=5)
        booted = rp2_bench.app_as_booted(board, windows=1, window_us=300_000)
    renders("rp2", {"irq": irq, "idle": idle, "event": event, "emit_path": emit, "as_booted": booted})
    assert irq["handler"] == "viper", irq
    assert irq["firmware"]["cycles_idle_stretch"] == [0], "the board asleep spends no cycles: the count is the edges'"
    assert irq["cycles_per_edge"] <= RP2_EDGE_CYCLES, irq
    assert irq["cycles_handler_over_floor"] < 2000, irq  # 892 cycles today; the bytecode handler takes 10,000
    assert irq["cycles_per_edge_python_handler"] > 2 * irq["cycles_per_edge"], irq
    assert irq["latency_asleep_us"]["min"] > 0 and irq["latency_asleep_us"]["max"] <= RP2_LATENCY_US, irq
    assert idle["bytes_allocated_per_pass"] == 0, idle
    assert idle["passes_that_allocated_with_the_heap_locked"] <= 2, idle  # an idle pass allocates nothing
    for state in ("built", "collected", "locked"):
        s = idle[state]
        # Issue 33: the PIO and DMA scan the strip; a scanning pass only compares their readings with its copy (the
        # CPU's own scan took 135,000 cycles more).
        assert s["cycles_per_pass"] > 0, idle
        assert s["cycles_per_scanning_pass"] < s["cycles_per_pass"] + 60_000, idle
    assert booted["idle_cpu_share"] < 0.30, booted  # 61 % before issue 33
    assert idle["locked"]["cycles_per_pass"] <= idle["collected"]["cycles_per_pass"], idle
    assert 50_000 < emit["cycles_emit"] < 1_000_000 and emit["bytes_allocated_per_event"] < 4096, emit
    assert emit["cycles_emit"] < event["cycles_per_event"] < 2_000_000, (emit, event)
