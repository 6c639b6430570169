"""The emulated Pico rig itself (host/sim/rp2), on a board kept in safe mode by its button (the REPL on the port): the
safe-mode button against the pad's pull-up, a USB host that keeps the port open and stops reading, the port going
away and coming back with a reset, idle time that costs no cycles, and nothing left behind after close()."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import serial
from rp2_board import flashed

from flickboard.sim.rp2 import Pico


def read_until(port: serial.Serial, text: bytes, timeout: float = 20.0) -> bytes:
    got = b""
    deadline = time.monotonic() + timeout
    while text not in got:
        assert time.monotonic() < deadline, f"no {text!r} within {timeout:.0f} s: {got[-200:]!r}"
        got += port.read(port.in_waiting or 1)
    return got


def repl(port: serial.Serial, line: bytes, timeout: float = 20.0) -> bytes:
    """Run a line at the REPL; returns what it printed (the line's echo excluded) once the next prompt shows."""
    port.write(line + b'; print("D" + "ONE")\r\n')
    got = read_until(port, b"DONE\r\n>>> ", timeout)
    return got.split(b"\r\n", 1)[1] if b"\r\n" in got else got


def repl_board() -> Pico:
    board = Pico(flash=flashed("pico_w"), pace="hold")
    board.press_safe_mode(True)
    board.go("fast")
    return board


def test_the_safe_mode_button_and_the_pull_up() -> None:
    with repl_board() as board, serial.Serial(board.wait_usb(), timeout=0.05) as port:
        port.write(b"\r\n")
        assert b"safe mode" in read_until(port, b">>> ")
        pin = board.wiring.safe_mode_pin
        assert pin is not None
        assert b"LEVEL 0" in repl(port, b'import machine; print("LEVEL", machine.Pin(%d).value())' % pin)
        board.press_safe_mode(False)
        assert b"LEVEL 1" in repl(port, b'print("LEVEL", machine.Pin(%d).value())' % pin)  # the pad's pull-up
        repl(port, b"machine.Pin(%d, machine.Pin.IN, machine.Pin.PULL_DOWN)" % pin)
        assert board.pin(pin)["pull"] == "down"
        assert b"LEVEL 0" in repl(port, b'print("LEVEL", machine.Pin(%d).value())' % pin)  # released, pulled down


def test_a_host_that_stops_reading_holds_the_board_output() -> None:
    with repl_board() as board, serial.Serial(board.wait_usb(), timeout=0.05) as port:
        repl(port, b"pass")
        board.usb_reading(False)
        port.write(b"print(6 * 7)\r\n")
        deadline = time.monotonic() + 20  # the port's bytes reach the chip on the host's time, not the emulated one
        while board.state()["usb"]["held_in"] < 1:
            assert time.monotonic() < deadline, board.state()["usb"]
            board.run_for(100_000)
        board.run_for(300_000)
        assert port.read(4096) == b""  # the board's IN packets wait in the device
        board.usb_reading(True)
        board.go("fast")
        assert b"42" in read_until(port, b"42\r\n")


def test_a_reset_takes_the_port_away_and_brings_a_new_one() -> None:
    with repl_board() as board:
        with serial.Serial(board.wait_usb(), timeout=0.05) as port:
            repl(port, b"pass")
            board.reset()
            board.wait_reset(1)
            gone = False
            try:
                gone = port.read(100) == b""
            except serial.SerialException:
                gone = True
            assert gone
        with serial.Serial(board.wait_usb(), timeout=0.05) as port:
            assert b"safe mode" in read_until(port, b">>> ")  # the board started again


def test_idle_time_costs_no_cycles() -> None:
    with repl_board() as board, serial.Serial(board.wait_usb(), timeout=0.05) as port:
        repl(port, b"pass")
        c0, t0 = board.cycles(), board.hold()
        board.run_until(t0 + 2_000_000)  # two emulated seconds waiting at the REPL
        idle = board.cycles() - c0
        assert idle < 0.01 * 2 * 125_000_000, idle
        port.write(b"while True: pass\r\n\r\n")
        board.go("fast")  # the port's bytes reach the chip on the host's time, not the emulated one: wait for the echo
        read_until(port, b"... \r\n")
        board.run_for(50_000)
        c0, t0 = board.cycles(), board.hold()
        board.run_until(t0 + 100_000)  # 0.1 emulated second of a busy loop
        busy = board.cycles() - c0
        assert busy == pytest.approx(0.1 * 125_000_000, rel=0.05), busy


def test_run_until_never_stops_short_of_its_time() -> None:
    """A time between two nanoseconds: a chip asleep at the REPL is run to the next whole ns, never to the one before
    (a caller that loops until now_us() reaches its end would otherwise never leave)."""
    with repl_board() as board, serial.Serial(board.wait_usb(), timeout=0.05) as port:
        repl(port, b"pass")
        board.hold()
        for fraction in (0.0001, 0.0004, 0.0005, 0.0009):  # µs: 0.1 to 0.9 ns
            t = float(int(board.now_us())) + 10_000 + fraction
            board.run_until(t)
            assert board.now_us() >= t, (board.now_us(), t)


def test_close_leaves_nothing_behind() -> None:
    board = Pico(flash=flashed("pico_w"))
    port = board.wait_usb()
    proc = board._proc
    scratch = Path(port).parent
    board.close()
    assert proc.poll() is not None
    assert not Path(port).exists() and not scratch.exists()
