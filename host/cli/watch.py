"""`flickboard watch`: every sensor of a board on USB, live, for the bench test (hardware/README.md, steps 8-19).

    flickboard watch --port /dev/ttyACM0 [--seconds 600]

It opens the board's port without resetting it (an ESP32 DevKit resets when RTS is raised alone:
flickboard.board.links.open_board_port), sends the firmware's `watch` command and prints one line per change, the
sensors that changed first:

    12.345  hole broken          | hole broken  ditch1 clear  ditch2 clear ...  baseline -
    12.901  baseline 3 4         | hole clear ...  baseline 3 4

so a person walks a puck along the board and reads each sensor's answer, instead of typing `selftest` at each spot.
The board looks at its sensors every 20 ms, so a puck dropping through the hole (a break of 20-65 ms) may show only
as its event: the board's events (`pass`, `stuck`, `shot_start`...) are printed too, as `event` lines.
It stops when the board's stream ends (its seconds run out), on Ctrl-C (it stops the board's stream first), or
when the board goes away. The bridge must not hold the port meanwhile (a port has one reader).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any, TextIO

from flickboard.board import protocol
from flickboard.board.links import close_board_port, open_board_port
from flickboard.errors import UserError


def configure_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", required=True, metavar="PORT", help="the board's USB serial port, e.g. /dev/ttyACM0")
    p.add_argument(
        "--seconds",
        type=int,
        default=600,
        help="how long the board streams (1-3600, default 600); Ctrl-C stops it sooner",
    )
    p.add_argument("--baud", type=int, default=115200, help=argparse.SUPPRESS)


def describe(state: Any) -> str:
    """One sensor's state as a person reads it: a beam's word, a strip's occupied sensors (or -)."""
    if isinstance(state, list):
        return " ".join(str(s) for s in state) if state else "-"
    return str(state)


def render(t_s: float, before: dict[str, Any] | None, now: dict[str, Any]) -> str:
    changed = [k for k in now if before is None or before.get(k) != now[k]]
    head = "  ".join(f"{k} {describe(now[k])}" for k in changed) if before is not None else "now"
    head = head or "end"  # the stream's last line: its time is up
    every = "  ".join(f"{k} {describe(v)}" for k, v in now.items())
    return f"{t_s:9.3f}  {head:<28} | {every}"


def stream(
    read_line: Callable[[], bytes],
    write: Callable[[bytes], object],
    out: TextIO,
    seconds: int,
    clock: Callable[[], float] = time.monotonic,
    stop: Callable[[], bool] = lambda: False,
) -> int:
    """Ask for the stream and print it until it ends; returns how many states were printed."""
    write(protocol.encode_command({"c": "watch", "id": 1, "s": seconds}).encode())
    t0 = clock()
    last: dict[str, Any] | None = None
    shown = 0
    answered = False
    while not stop():
        raw = read_line()
        if not raw:
            if not answered and clock() - t0 > 5:
                raise UserError("the board did not answer `watch` in 5 s: is the app running (not the REPL, not safe"
                                " mode), and is it flashed with this version?")  # fmt: skip
            continue
        try:
            msg = protocol.decode_line(raw.rstrip(b"\r\n"))
        except protocol.ProtocolError:
            continue  # boot banners, REPL noise, another kind's garbled line
        f = msg.fields
        if msg.reliable and answered:  # the board's events come on the same port: a pass is shorter than a look
            what = " ".join(f"{k}={v}" for k, v in sorted(f.items()) if k != "n")
            print(f"{clock() - t0:9.3f}  event {msg.kind} {f.get('n', '')} {what}".rstrip(), file=out, flush=True)
            continue
        if msg.kind != "reply" or f.get("c") != "watch":
            continue
        if not f.get("ok"):
            raise UserError(f"the board refused `watch`: {f.get('msg', '')}")
        answered = True
        d = f.get("d") or {}
        sensors = d.get("sensors") or {}
        print(render(clock() - t0, last, sensors), file=out, flush=True)
        last = sensors
        shown += 1
        if d.get("s") == 0:
            break
    return shown


def run_watch(args: argparse.Namespace, out: TextIO) -> int:
    if not 1 <= args.seconds <= 3600:
        raise UserError("--seconds must be 1 to 3600")
    serial_mod: Any = __import__("serial")
    try:
        ser = open_board_port(args.port, args.baud, timeout=0.2)
    except (OSError, serial_mod.SerialException) as e:
        raise UserError(f"cannot open {args.port}: {e} (is the bridge or mpremote using it?)") from None
    print(f"watching {args.port} for {args.seconds} s (Ctrl-C stops); each line: what changed | every sensor", file=out)
    try:
        stream(ser.readline, ser.write, out, args.seconds)
    except KeyboardInterrupt:
        ser.write(protocol.encode_command({"c": "watch", "id": 2, "s": 0}).encode())
        ser.flush()
    except serial_mod.SerialException as e:
        raise UserError(f"{args.port}: {e} (the board went away?)") from None
    finally:
        close_board_port(ser)
    return 0


__all__ = ["configure_parser", "describe", "render", "run_watch", "stream"]
