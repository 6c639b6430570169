"""Shared helpers for the tests on the emulated Pico (host/sim/rp2): the real MicroPython rp2 firmware in rp2040js.

`flashed(name)` is a flash image made once per test session: a blank Pico flashed with the project's own
`make flash BOARD=pico_w` (mpremote over the board's pseudo-terminal), then given a test /config.json (and, for
"pico_w_mux", the test profile MUX_PROFILE: the hall strip behind two 74HC4067s) with mpremote while the
safe-mode button is held. Each test starts its own board from an image: `Pico(flash=flashed("pico_w"))`.

`Host` is a USB host program on the board's port (pyserial): it decodes the board's lines with the host's own
decoder (host/board/protocol.py), sends commands, acks. A test fails on any alarm the board raised that its scenario
did not cause: when the `with Host(...)` block ends, every message read so far is checked, and a `count`, `fault`,
`stuck`, `clear`, `chatter`, `gap` or `error` is a failure unless the test named it in `expect` (a kind, or
"fault:CODE" for one fault code). So a false alarm in any test on the emulated Pico is caught.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import serial

from flickboard.board.protocol import BoardMessage, ProtocolError, ack_command, decode_line, encode_command
from flickboard.sim.rp2 import Pico, RigError
from flickboard.sim.rp2.parts import load_profile

# How late the firmware may timestamp an edge: its hard pin IRQ reads the µs timer on entry, and an edge that comes
# while the core runs with interrupts off (the USB stack, the timer's alarm, a flash access) waits for them to be
# back on. A few µs is what the emulated chip shows; a pass late by a delivery instead would be off by milliseconds.
IRQ_LATE_US = 20

# The tests' board settings: a heartbeat every emulated second (the shortest the firmware takes), a board id.
TEST_CONFIG = {"board_id": "rp2rig", "heartbeat_ms": 1000}


def _mux_profile() -> dict[str, Any]:
    """pico_w with its hall strip behind two 74HC4067s sharing select lines (32 segments), with /E."""
    p = load_profile("pico_w")
    p = json.loads(json.dumps(p))
    p["profile"] = "pico_w_mux"
    for s in p["sensors"]:
        if s["kind"] == "hall":
            s["count"] = 32
            s["pins"] = None
            s["mux"] = {"select": [7, 8, 9, 10], "signal": [11, 12], "enable": 13}
    return p


MUX_PROFILE = _mux_profile()

_images: dict[str, Path] = {}
_dir: list[Path] = []


def _cleanup() -> None:
    for d in _dir:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup)


_failed: list[str] = []


def flashed(name: str) -> Path:
    """The flash image "pico_w" or "pico_w_mux", made at the first call of the session (both at once). When making
    them failed, every later call fails at once with the same sentence (no second `make flash`)."""
    if _failed:
        raise RigError(_failed[0])
    if not _images:
        try:
            _make_images()
        except RigError as e:
            _failed.append(str(e))
            raise
    return _images[name]


def _make_images() -> None:
    out = Path(tempfile.mkdtemp(prefix="flickboard-rp2-images-"))
    _dir.append(out)
    (out / "config.json").write_text(json.dumps({**TEST_CONFIG, "profile": "pico_w"}))
    (out / "mux-config.json").write_text(json.dumps({**TEST_CONFIG, "profile": "pico_w_mux"}))
    (out / "pico_w_mux.json").write_text(json.dumps(MUX_PROFILE))
    with Pico(profile="pico_w", pace="realtime") as board:
        board.make_flash("pico_w")
        # The test settings go on with mpremote, the app kept from starting by the safe-mode button.
        board.press_safe_mode(True)
        board.reset()
        board.mpremote("fs", "cp", str(out / "config.json"), ":config.json")
        board.press_safe_mode(False)
        board.reset(hold=True)
        board.save_flash(out / "pico_w.img")
        board.press_safe_mode(True)
        board.go("realtime")
        board.mpremote(
            "fs", "cp", str(out / "pico_w_mux.json"), ":profiles/pico_w_mux.json", "+",
            "fs", "cp", str(out / "mux-config.json"), ":config.json",
        )  # fmt: skip
        board.press_safe_mode(False)
        board.reset(hold=True)
        board.save_flash(out / "pico_w_mux.img")
    _images["pico_w"] = out / "pico_w.img"
    _images["pico_w_mux"] = out / "pico_w_mux.img"


# The messages that say something is wrong: a test that does not cause one must not see one.
ALARMS = ("count", "fault", "stuck", "clear", "chatter", "gap", "error")


class Host:
    """A program on the board's USB port: decoded board messages in `msgs`, commands out. `expect`: the alarms (ALARMS)
    the test's scenario causes, by kind or as "fault:CODE"; any other is a failure at the end of the `with` block."""

    def __init__(self, board: Pico, timeout: float = 30.0, expect: tuple[str, ...] = ()) -> None:
        self.board = board
        self.expect = expect
        self.msgs: list[BoardMessage] = []
        self.noise: list[bytes] = []
        self._buf = b""
        self.port: serial.Serial | None = None
        self.open(timeout)

    def open(self, timeout: float = 30.0) -> None:
        self.board.wait_usb(timeout)
        self.port = serial.Serial(self.board.port, timeout=0.05)

    def close(self) -> None:
        if self.port is not None:
            self.port.close()
            self.port = None

    def reopen(self, timeout: float = 30.0) -> None:
        """After a reset the port went away with the USB device: open it again once the board is back."""
        self.close()
        self._buf = b""
        self.open(timeout)

    def send(self, cmd: dict[str, Any]) -> None:
        assert self.port is not None
        self.port.write(encode_command(cmd).encode())

    def _pump(self) -> list[BoardMessage]:
        assert self.port is not None
        try:
            # What is there, else wait (up to the port's timeout) for one byte: a read that waits for more can
            # lose what it has read so far when the device goes away (pyserial raises).
            data = self.port.read(self.port.in_waiting or 1)
        except serial.SerialException:
            return []  # the device went away (a reset): the caller reopens
        self._buf += data
        got = []
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            try:
                m = decode_line(line)
            except ProtocolError:
                self.noise.append(line)
                continue
            self.msgs.append(m)
            got.append(m)
        return got

    def wait(
        self, pred: Callable[[BoardMessage], bool], timeout: float = 30.0, what: str = "a message"
    ) -> BoardMessage:
        """The first message from now on that matches, reading the port meanwhile."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self._pump():
                if pred(m):
                    return m
            if self.board.halted:
                raise RigError(self.board.halted)
        tail = b" | ".join(self.noise[-3:]).decode(errors="replace")
        raise AssertionError(f"no {what} within {timeout:.0f} s (board noise: {tail[-300:]!r})")

    def wait_kind(self, kind: str, timeout: float = 30.0, **fields: Any) -> BoardMessage:
        def match(m: BoardMessage) -> bool:
            return m.kind == kind and all(m.fields.get(k) == v for k, v in fields.items())

        return self.wait(match, timeout, f"{kind} {fields or ''}".strip())

    def collect(self, until: Callable[[], bool], timeout: float = 30.0) -> None:
        """Read until `until()` holds."""
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError(f"the board did not get there within {timeout:.0f} s")
            self._pump()

    def command(self, c: str, timeout: float = 30.0, **fields: Any) -> BoardMessage:
        """Send a command with a fresh id and wait for its reply."""
        cid = f"t{time.monotonic_ns() % 10**9}"
        self.send({"c": c, "id": cid, **fields})
        return self.wait(lambda m: m.kind == "reply" and m.fields.get("id") == cid, timeout, f"the reply to {c}")

    def hello(self, timeout: float = 30.0) -> BoardMessage:
        """The board's hello (a ping makes it resend what the host has not acked, hello included)."""
        self.send({"c": "ping"})
        return self.wait_kind("hello", timeout)

    def ack(self, m: BoardMessage) -> None:
        self.send(ack_command(m.boot, m.seq))

    def events(self, kind: str, boot: int | None = None) -> list[BoardMessage]:
        """The distinct reliable messages of a kind received so far (resends counted once)."""
        seen: dict[tuple[str, int, int], BoardMessage] = {}
        for m in self.msgs:
            if m.kind == kind and (boot is None or m.boot == boot):
                seen.setdefault(m.key, m)
        return sorted(seen.values(), key=lambda m: (m.boot, m.seq))

    def surprises(self) -> list[BoardMessage]:
        """The alarms received so far that the scenario did not cause (not in `expect`)."""
        out = []
        for m in self.msgs:
            if m.kind not in ALARMS or m.kind in self.expect:
                continue
            if m.kind == "fault" and f"fault:{m.fields.get('code')}" in self.expect:
                continue
            out.append(m)
        return out

    def drain(self) -> None:
        """Read what the board has sent and nobody has read yet."""
        if self.port is not None:
            try:
                while self.port.in_waiting:
                    self._pump()
            except (OSError, serial.SerialException):
                pass

    def assert_no_surprises(self) -> None:
        self.drain()
        bad = self.surprises()
        assert not bad, "alarms the scenario did not cause: " + "; ".join(
            f"{m.kind} {m.fields} (boot {m.boot}, seq {m.seq})" for m in bad[:8]
        )

    def __enter__(self) -> Host:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        try:
            if exc_type is None:
                self.assert_no_surprises()
        finally:
            self.close()
