"""Boot on the emulated Pico (host/sim/rp2): the real MicroPython rp2 firmware in rp2040js, flashed with the project's
own `make flash`, says hello with its profile and sensors, sends heartbeats, and counts its boots in /boot_id on its
littlefs file system across resets (the watchdog reset of `machine.reset()`, and a power cycle)."""

from __future__ import annotations

import itertools

import pytest
from rp2_board import TEST_CONFIG, Host, flashed

from flickboard.sim.rp2 import Pico
from flickboard.sim.rp2.parts import load_profile


def sensors_of(profile: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for s in load_profile(profile)["sensors"]:
        entry: dict[str, object] = {"k": s["kind"], "n": s["name"]}
        if s["kind"] == "hall":
            entry["c"] = s["count"]
        out.append(entry)
    return out


def test_hello_heartbeats_and_the_boot_id_across_resets() -> None:
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        hello = host.hello()
        assert hello.board == TEST_CONFIG["board_id"]
        assert hello.seq == 1
        assert hello.fields["prof"] == "pico_w"
        assert hello.fields["sn"] == sensors_of("pico_w")
        first = hello.boot
        assert 1 <= first < 2**30, "a boot id at or above 2**30 is random: /boot_id could not be written"

        beats = [host.wait_kind("heartbeat", timeout=30) for _ in range(3)]
        ups = [b.fields["up"] for b in beats]
        assert all(b.boot == first for b in beats)
        assert all(900 <= b - a <= 1100 for a, b in itertools.pairwise(ups)), ups  # heartbeat_ms 1000
        assert all(b.fields["heap"] > 20_000 for b in beats)  # the 32-bit port's own heap, in bytes
        assert all(b.fields["drop"] == 0 for b in beats)

        # `reboot`: the board replies, then machine.reset(), a watchdog reset; the USB device goes and comes back.
        host.command("reboot")
        board.wait_reset(1)
        host.reopen()
        again = host.hello()
        assert again.boot == first + 1
        assert again.seq == 1

        # A power cycle (the flash keeps its file system).
        board.reset()
        host.reopen()
        assert host.hello().boot == first + 2


def test_the_reset_cause_in_hello() -> None:
    """`rst` says why the board started: a power cycle, or the watchdog (machine.reset() on the rp2 port)."""
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        assert host.hello().fields["rst"] == "power"
        host.command("reboot")
        board.wait_reset(1)
        host.reopen()
        assert host.hello().fields["rst"] == "watchdog"


def test_the_ir_carriers_on_their_pins() -> None:
    """The IR LEDs' carriers, measured on the output pins from their edges: the profile's frequency and duty, 38 kHz
    on GP27 and 56 kHz on GP28 at once (two PWM slices: the second hole beam's own carrier)."""
    profile = load_profile("pico_w")
    with Pico(flash=flashed("pico_w")) as board, Host(board) as host:
        host.hello()
        for second, ir in ((False, profile["ir_carrier"]), (True, profile["ir_carrier2"])):
            freq, duty = board.ir_carrier(second)
            assert freq == pytest.approx(ir["freq_hz"], rel=0.01), second
            assert duty == pytest.approx(ir["duty_u16"] / 65536, abs=0.01), second
        assert profile["ir_carrier2"]["freq_hz"] != profile["ir_carrier"]["freq_hz"]
