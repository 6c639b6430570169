"""A game on the emulated Pico: the simulated board's timeline (host/sim/board_scenario.py) played into the rig's GPIOs
at exact emulated times, held at its hold points so that a scorer (host/sim/driver.py) plays the people's part shot by
shot; and the flash images that `flickboard sim --rp2` and `flickboard demo --rp2` start from.

    image = board_image("demo", say=print)        # make flash + the board's config.json, once per firmware change
    with Pico(flash=image, pace="hold") as board:
        game = RigGame(board, scenario)           # a scenario with "holds" (from_transcript(..., holds=True))
        game.start(processed)                     # runs the board until the bridge has its hello, then schedules
        Driver(transcript, game, enter, processed).run()

The simulated board stops itself at a hold and writes its high-water mark to a file (firmware/fb/sim.py). The rig
needs neither: it holds the chip (`run_until` the hold's emulated time), and reads the high-water mark from the
board's own USB lines as a USB analyser would (`Pico.listen`): every reliable message carries its number, every
heartbeat and reply the last number assigned. Between two holds the board runs paced to real time (the bridge talks
to it); while it is held, its emulated time stands still, so the next shot's events come exactly where the timeline
puts them whatever the scorer does meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flickboard.board import files
from flickboard.board.protocol import ProtocolError, decode_line
from flickboard.config import board_problem
from flickboard.sim.rp2.images import CHECKOUT, RigError, cache_dir, find_images
from flickboard.sim.rp2.rig import Pico

FIRMWARE = files.firmware_dir()
PROFILES = files.profiles_dir()
START_US = 1000  # the timeline's time 0: this long after the board was held, once the bridge had its hello


class HighWater:
    """The board's high-water mark as its USB lines say: the highest `s` of its newest boot."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buf = b""
        self.board: str | None = None
        self.boot: int | None = None
        self.seq = 0
        self.lines = 0  # protocol lines heard

    def heard(self, data: bytes) -> None:
        with self._lock:
            self._buf += data
            *lines, self._buf = self._buf.split(b"\n")
            if len(self._buf) > 4096:  # no newline in sight: noise (a REPL, a traceback); keep the tail
                self._buf = self._buf[-1024:]
            for line in lines:
                try:
                    m = decode_line(line)
                except ProtocolError:
                    continue
                self.lines += 1
                self.board = m.board
                if m.boot != self.boot:  # a reset: numbers start again at 1
                    self.boot, self.seq = m.boot, m.seq
                else:
                    self.seq = max(self.seq, m.seq)

    def mark(self) -> tuple[str | None, int | None, int]:
        """(board id, boot id, high-water mark) as heard so far."""
        with self._lock:
            return self.board, self.boot, self.seq


class RigGame:
    """A scenario with hold points played on an emulated Pico (host/sim/driver.py's `Holds`)."""

    def __init__(self, board: Pico, scenario: dict[str, Any], pace: str = "realtime") -> None:
        self.board = board
        self.scenario = scenario
        self.pace = pace
        self.holds = {str(h["name"]): float(h["at_ms"]) for h in scenario.get("holds", [])}
        self.t0_us: float | None = None
        self.high_water = HighWater()
        board.listen(self.high_water.heard)

    def start(self, processed: Callable[[], int] | None = None, timeout: float = 60.0) -> None:
        """Run the board (paced) until it has said hello on USB and, with `processed` (the bridge's last journaled
        seq), until the bridge has everything it sent; then hold it and schedule the timeline from START_US on."""
        self.board.go(self.pace)
        self.board.wait_usb(timeout)
        deadline = time.monotonic() + timeout
        while True:
            self._check()
            _, _, seq = self.high_water.mark()
            if seq >= 1 and (processed is None or processed() >= seq):
                break
            if time.monotonic() > deadline:
                if seq < 1:
                    raise RigError(f"the emulated Pico said no hello on its USB port within {timeout:.0f} s")
                raise RigError(f"the bridge did not get the emulated Pico's first events within {timeout:.0f} s")
            time.sleep(0.01)
        self.t0_us = self.board.hold() + START_US
        self.board.play(self.scenario, self.t0_us)

    def at_us(self, name: str) -> float:
        """The emulated µs of hold `name`."""
        if self.t0_us is None:
            raise RigError("the game has not started: call start() first")
        if name not in self.holds:
            raise RigError(f"the timeline has no hold {name!r}")
        return self.t0_us + self.holds[name] * 1000

    def end_us(self) -> float:
        """The emulated µs where the scenario ends (its end_ms)."""
        assert self.t0_us is not None
        return self.t0_us + float(self.scenario.get("end_ms") or 0) * 1000

    def reach(self, name: str, timeout: float) -> int:
        """Run the board to hold `name` and hold it there; its high-water mark."""
        self.board.run_until(self.at_us(name), pace=self.pace, timeout=max(timeout, 60.0))
        self._check()
        return self.high_water.mark()[2]

    def release(self, name: str) -> None:
        """The board stays held until the next reach(); after the last hold it runs on, as a board on the table."""
        if name == "end":
            self.board.go(self.pace)

    def _check(self) -> None:
        if self.board.halted:
            raise RigError(f"the emulated Pico stopped: {self.board.halted}")
        err = self.board.listen_error()
        if err:
            raise RigError(err)


# -- flash images ---------------------------------------------------------------------------------------------------


def build_dir() -> Path:
    """Where the flash images are kept: $RP2_BUILD, else build/rp2/ in the repository."""
    env = os.environ.get("RP2_BUILD")
    if env:
        return Path(env).expanduser()
    return CHECKOUT / "build" / "rp2" if CHECKOUT is not None else cache_dir() / "rp2" / "images"


def image_key(config: dict[str, Any], profile: str) -> str:
    """What a flash image depends on: the firmware's files, the profile, the MicroPython image and the config."""
    h = hashlib.sha256(json.dumps(config, sort_keys=True).encode())
    files = sorted(p for p in FIRMWARE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in [*files, PROFILES / f"{profile}.json", find_images().uf2]:
        if path.name == "config.json" and path.parent == FIRMWARE:
            continue  # a maker's own settings: make flash copies them, and the image's config.json replaces them
        h.update(str(path.relative_to(FIRMWARE) if path.is_relative_to(FIRMWARE) else path.name).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def board_image(
    board_id: str,
    profile: str = "pico_w",
    settings: dict[str, Any] | None = None,
    say: Callable[[str], None] = lambda _s: None,
) -> Path:
    """A flash image of a Pico with this checkout's firmware (the project's own `make flash BOARD=profile`) and a
    /config.json naming the board (plus `settings`, e.g. heartbeat_ms); made once per firmware change, in build_dir().
    Raises RigError."""
    if not (PROFILES / f"{profile}.json").is_file():
        raise RigError(f"no board profile {profile!r} in {PROFILES}")
    problem = board_problem(board_id)  # the one rule for a board id (flickboard/config.py)
    if problem:
        raise RigError(problem)
    config = {"profile": profile, "board_id": board_id, **(settings or {})}
    folder = build_dir()
    out = folder / f"{profile}-{board_id}-{image_key(config, profile)}.img"
    if out.is_file():
        return out
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RigError(f"cannot keep flash images in {folder}: {e.strerror or e}") from None
    say(f"flashing this checkout's firmware onto a blank emulated Pico (make flash BOARD={profile}; once per change)")
    with tempfile.TemporaryDirectory(dir=folder, prefix=".making-") as tmp:
        cfg = Path(tmp) / "config.json"
        cfg.write_text(json.dumps(config))
        made = Path(tmp) / "flash.img"
        with Pico(profile=profile, pace="realtime") as board:
            board.make_flash(profile)
            # The board's settings go on with mpremote, the app kept from starting by the safe-mode button.
            board.press_safe_mode(True)
            board.reset()
            board.mpremote("fs", "cp", str(cfg), ":config.json")
            board.press_safe_mode(False)
            board.reset(hold=True)
            board.save_flash(made)
        os.replace(made, out)
    for old in folder.glob(f"{profile}-{board_id}-*.img"):
        if old != out:
            old.unlink(missing_ok=True)  # an image of older firmware
    say(f"saved {out}")
    return out
