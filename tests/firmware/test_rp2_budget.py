"""The memory budget on the real 32-bit rp2 port (docs/performance.md, "7 The firmware on the rp2 port"): everything
a board holds live, in a heap the size of the board's, measured on the emulated Pico (bench/rp2_bench.budget).

The rig's RPI_PICO firmware has about 240 KB of heap; one block taken first leaves MicroPython what the board has in
all: about 160 KB on a Pico W with Wi-Fi up (the low end), about 110 KB on a plain ESP32. Then, in that heap: the
app's modules, the configuration, the App with the whole pico_w profile (five beams, the 128-sensor strip), and on a
Pico W the MQTT client (over a stand-in socket module: the RPI_PICO build has no network); a game of sensor events
that nobody acknowledges (the outbox keeps 64 lines), and the MQTT client's 16-message QoS 1 window full. The
figures are bytes, which do not depend on the machine's speed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rp2_board import flashed

ROOT = Path(__file__).resolve().parents[2]

from bench import rp2_bench  # noqa: E402
from flickboard.sim.rp2 import Pico  # noqa: E402

EVENTS = 100
KB = 1024
# The stated budgets: what the firmware may hold live, with the room each board must keep free. They moved twice,
# each for a feature that is worth its bytes: the second hole beam on its own carrier with the hole's rebound window
# (+4.4 KB), and two pucks side by side on the strip with the PIO scan (+3.6 KB on a Pico W, +1.9 KB on an ESP32).
PICO_W_LIVE_MAX = 112 * KB  # 107.4 KiB measured: modules 47.8 KiB, MQTT 28.6 KiB, the rest the app, a full outbox
PICO_W_FREE_MIN = 40 * KB  # 41.4 KiB measured
PICO_W_BLOCK_MIN = rp2_bench.LARGEST_BLOCK_MIN  # figure 7's target; the figure moves from run to run (8 to 24 KB)
# The ESP32 on USB only (experimental, docs/firmware.md): no PIO, so the CPU scans its strip and fb.muxscan is not
# loaded. 77.4 KiB measured, in the 110 KB its heap has once doubled; what stays free is the guard here, the largest
# block is figure 7's (not met by the stock image: the frozen image meets it, docs/performance.md).
ESP32_USB_LIVE_MAX = 80 * KB
ESP32_USB_FREE_MIN = 20 * KB  # 21.7 KiB measured


@pytest.fixture(scope="module")
def board() -> Iterator[Pico]:
    with Pico(flash=flashed("pico_w"), pace="fast") as b:
        rp2_bench.prepare(b)
        yield b


def played_the_game(m: dict[str, Any]) -> None:
    """Every event came, nothing was lost for memory, the outbox is full of un-acknowledged lines."""
    assert m["fits"] is True, m
    assert m["memory_errors"] == 0 and m["lost"] == 0 and m["ring_dropped"] == 0, m
    assert m["seq"] >= 1 + EVENTS, m
    assert m["outbox"] == 64 and m["outbox_dropped"] == m["seq"] - 64, m


def test_a_pico_w_holds_the_whole_load_with_room_to_spare(board: Pico) -> None:
    m = rp2_bench.budget(board, events=EVENTS, heap_total=rp2_bench.PICO_W_HEAP, mqtt=True)
    played_the_game(m)
    assert m["inflight"] == 16, "the MQTT client's QoS 1 window is full"
    live = m["live_bytes"]
    assert set(live) == set(rp2_bench.LIVE), live
    assert all(v > 0 for v in live.values()), live
    assert m["live_total"] <= PICO_W_LIVE_MAX, m
    assert m["free_end"] >= PICO_W_FREE_MIN and m["largest_free_block"] >= PICO_W_BLOCK_MIN, m


def test_an_esp32_on_usb_only_keeps_its_load_within_the_stated_budget(board: Pico) -> None:
    m = rp2_bench.budget(board, events=EVENTS, heap_total=rp2_bench.ESP32_HEAP, mqtt=False)
    played_the_game(m)
    assert m["inflight"] == 0 and "mqtt_client" not in m["live_bytes"] and m["pio"] is False, m
    assert m["live_total"] <= ESP32_USB_LIVE_MAX, m
    assert m["free_end"] >= ESP32_USB_FREE_MIN, m
