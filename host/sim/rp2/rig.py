"""The emulated Pico: a Node process (emulator.mjs) running the real MicroPython rp2 firmware in rp2040js, and the
pseudo-terminal that stands for its USB port. See the package docstring (host/sim/rp2/__init__.py) for the API.

Threads: one reads the emulator's replies and events; one relays the USB bytes between the emulator's socket and
the pseudo-terminal, and watches whether a program has the port open (the host raises DTR then). The Node process
exits when its stdin closes, so it never outlives this process, however this process ends.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import json
import math
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flickboard import lifecycle
from flickboard.sim.rp2 import scenario as scenario_mod
from flickboard.sim.rp2.images import CHECKOUT, EMULATOR, Images, RigError, find_images, node
from flickboard.sim.rp2.parts import Level, Wiring, wiring

PACES = ("fast", "realtime", "hold")
_LIVE: weakref.WeakSet[Pico] = weakref.WeakSet()


def _close_all() -> None:
    for board in list(_LIVE):
        board.close()


atexit.register(_close_all)


class Pico:
    """One emulated Raspberry Pi Pico with the real MicroPython rp2 firmware, and the parts of a board profile."""

    def __init__(
        self,
        flash: str | Path | None = None,
        profile: str | Path | dict[str, Any] = "pico_w",
        pace: str = "fast",
        link: str | Path | None = None,
        images: Images | None = None,
    ) -> None:
        if pace not in PACES:
            raise RigError(f"pace is one of {', '.join(PACES)}, not {pace!r}")
        self.images = images or find_images()
        self.wiring: Wiring = wiring(profile)
        if flash is not None and not Path(flash).is_file():
            raise RigError(f"no flash image {flash} (make one with: python -m flickboard.sim.rp2 flash --out {flash})")
        if link is not None and not Path(link).absolute().parent.is_dir():
            raise RigError(f"cannot put the port at {link}: its folder does not exist")
        self.log: list[str] = []  # the emulator's warnings (unmodelled registers, ...)
        self.resets: list[dict[str, Any]] = []  # one entry per reset: {"cause", "n", "t_ns"}
        self.halted: str | None = None
        self._tmp = Path(tempfile.mkdtemp(prefix="flickboard-rp2-"))
        self.port = str(Path(link).absolute() if link else self._tmp / "ttyACM0")
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._replies: dict[int, dict[str, Any]] = {}
        self._next_id = 0
        self._dead: str | None = None
        self._closed = False
        self._attached = False
        self._ready = False
        exe = node()
        ours, theirs = socket.socketpair()
        for s in (ours, theirs):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        cmd = [exe, str(EMULATOR), "--bootrom", str(self.images.bootrom), "--serial-fd", str(theirs.fileno())]
        cmd += ["--flash", str(flash)] if flash is not None else ["--uf2", str(self.images.uf2)]
        cmd += ["--link", self.port, "--scratch", str(self._tmp)]
        self._stderr = open(self._tmp / "emulator.log", "wb")  # noqa: SIM115 (closed in close())
        try:
            self._proc = lifecycle.spawn(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                pass_fds=(theirs.fileno(),),
                cwd=str(EMULATOR.parent),
                start_new_session=True,  # a Ctrl-C at the terminal goes to us; we stop it in order
            )
        except OSError as e:
            self._stderr.close()
            shutil.rmtree(self._tmp, ignore_errors=True)
            raise RigError(f"could not start the emulator ({exe}): {e.strerror or e}") from None
        finally:
            theirs.close()
        _LIVE.add(self)
        self._usb = _UsbPort(ours, self.port, self._notify)
        self._reader = threading.Thread(target=self._read_events, name="rp2-events", daemon=True)
        self._reader.start()
        self._usb.start()
        try:
            self._wait_ready()
            self._call(
                "configure",
                muxes=list(self.wiring.muxes),
                watch=[p for p in (self.wiring.ir_pin, self.wiring.ir2_pin) if p is not None],
            )
            self.drive(self.wiring.idle())
            if pace != "hold":
                self.go(pace)
        except BaseException:
            self.close()
            raise

    # -- the emulator process -------------------------------------------------------------------------------------

    def _send(self, obj: dict[str, Any]) -> None:
        data = (json.dumps(obj) + "\n").encode()
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            with self._lock:
                if self._dead is not None:
                    raise RigError(self._dead)
                stdin.write(data)
                stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise RigError(self._dead or "the emulator has stopped") from None

    def _call(self, op: str, timeout: float = 30.0, **fields: Any) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            rid = self._next_id
        self._send({"id": rid, "op": op, **fields})
        deadline = time.monotonic() + timeout
        with self._cond:
            while rid not in self._replies:
                if self._dead is not None:
                    raise RigError(self._dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RigError(f"the emulator did not answer {op!r} within {timeout:.0f} s")
                self._cond.wait(left)
            reply = self._replies.pop(rid)
        if not reply.get("ok"):
            raise RigError(f"emulator: {reply.get('error')}")
        return reply

    def _wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._ready:
                if self._dead is not None:
                    raise RigError(self._dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RigError("the emulator did not start within 30 s")
                self._cond.wait(left)

    def _read_events(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        for raw in stdout:
            try:
                msg = json.loads(raw)
                if not isinstance(msg, dict):
                    continue
                self._on_message(msg)
            except (ValueError, KeyError, TypeError):
                continue
        self._proc.wait()
        tail = ""
        try:
            lines = (self._tmp / "emulator.log").read_text(errors="replace").strip().splitlines()
            errors = [ln for ln in lines if "Error" in ln]
            tail = (errors or lines or [""])[-1].strip()
        except OSError:
            pass
        with self._cond:
            if self._dead is None:
                why = f" ({tail})" if tail else ""
                self._dead = f"the emulator stopped (exit code {self._proc.returncode}){why}"
            self._cond.notify_all()

    def _on_message(self, msg: dict[str, Any]) -> None:
        """A reply (by id) or an event from the emulator."""
        ev = msg.get("ev")
        if ev is None:
            with self._cond:
                self._replies[int(msg["id"])] = msg
                self._cond.notify_all()
        elif ev == "usb":
            self._attached = bool(msg["attached"])
            self._usb.attach(self._attached)
            with self._cond:
                self._cond.notify_all()
        elif ev == "reset":
            with self._cond:
                self.resets.append(msg)
                self.halted = None
                self._cond.notify_all()
        elif ev == "halt":
            with self._cond:
                self.halted = str(msg["reason"])
                self._cond.notify_all()
        elif ev == "log":
            self.log.append(f"{msg.get('level')}: {msg.get('msg')}")
        elif ev == "ready":
            with self._cond:
                self._ready = True
                self._cond.notify_all()

    def _notify(self, op: str, **fields: Any) -> None:
        """A request from the USB relay thread, not waited for."""
        try:
            with self._lock:
                self._next_id += 1
                rid = self._next_id
            self._send({"id": rid, "op": op, **fields})
        except RigError:
            pass

    # -- time and running -----------------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The emulator's state: t_ns, cycles, resets, mode, halted, usb {attached, open, reading, ...}."""
        return self._call("state")

    def now_us(self) -> float:
        """Emulated µs since the rig started (it runs on across resets)."""
        return float(self.state()["t_ns"]) / 1000

    def cycles(self) -> int:
        """CPU cycles executed (at 125 MHz) since the rig started; idle time (WFI) spends none."""
        return int(self.state()["cycles"])

    def go(self, pace: str = "fast") -> None:
        """Run freely: "fast" (idle time skipped, as fast as the host can) or "realtime" (never ahead of the wall
        clock: for mpremote, the bridge, a person)."""
        if pace not in ("fast", "realtime"):
            raise RigError(f"go() takes pace 'fast' or 'realtime', not {pace!r}")
        self._call("go", pace=pace)

    def hold(self) -> float:
        """Stop the chip; returns the emulated µs it stopped at."""
        return float(self._call("hold")["t_ns"]) / 1000

    def run_until(self, t_us: float, pace: str = "fast", timeout: float | None = None) -> None:
        """Run to emulated time t_us, then hold."""
        now = self.now_us()
        if timeout is None:
            timeout = 60 + max(0.0, t_us - now) / 1e6 * (20 if pace == "fast" else 2)
        # The next whole ns at or after t_us: a chip asleep stops exactly on the ns it is given, and one rounded down
        # would leave now_us() short of t_us.
        self._call("run_until", timeout=timeout, t_ns=math.ceil(t_us * 1000), pace=pace)

    def run_for(self, us: float, pace: str = "fast") -> None:
        self.run_until(self.now_us() + us, pace)

    # -- parts ------------------------------------------------------------------------------------------------------

    def drive(self, changes: Iterable[tuple[int, Level]]) -> None:
        """Drive lines now: (line, 0 | 1 | None), None releasing the line (it floats to its pad's pull)."""
        self._call("drive", changes=[[int(line), v] for line, v in changes])

    def set_beam(self, name: str, broken: bool) -> None:
        b = self.wiring.beam(name)
        self.drive([(b.pin, b.level(broken))])

    def set_hall(self, name: str, seg: int, present: bool) -> None:
        self.drive([(self.wiring.hall_line(name, seg), self.wiring.hall(name).level(present))])

    def press_safe_mode(self, pressed: bool = True) -> None:
        """The safe-mode button (safe_mode_pin to GND)."""
        pin = self.wiring.safe_mode_pin
        if pin is None:
            raise RigError(f"profile {self.wiring.profile} has no safe_mode_pin")
        self.drive([(pin, 0 if pressed else None)])

    def schedule(self, changes: Iterable[tuple[float, int, Level]]) -> None:
        """Line changes at emulated times: (t_us, line, level); fractions of a µs are kept (to the ns)."""
        self._call("schedule", changes=[[round(t * 1000), int(line), v] for t, line, v in changes])

    def schedule_beam(self, name: str, start_us: float, dur_us: float) -> None:
        """The beam broken from start_us for dur_us."""
        b = self.wiring.beam(name)
        self.schedule([(start_us, b.pin, b.level(True)), (start_us + dur_us, b.pin, b.level(False))])

    def schedule_hall(self, name: str, t_us: float, seg: int, present: bool) -> None:
        self.schedule([(t_us, self.wiring.hall_line(name, seg), self.wiring.hall(name).level(present))])

    def play(self, scenario: dict[str, Any], t0_us: float | None = None) -> float:
        """A simulated-board scenario (host/sim/rp2/scenario.py): `hall_start` now, the events from t0_us (default: 1 ms
        from now). Returns the emulated µs of its last change."""
        start = self.now_us() + 1000 if t0_us is None else t0_us
        self.drive(scenario_mod.initial(scenario, self.wiring))
        changes = scenario_mod.timeline(scenario, self.wiring, round(start * 1000))
        if changes:
            self._call("schedule", changes=[[t, line, v] for t, line, v in changes])
            return changes[-1][0] / 1000
        return start

    # -- faults a test injects ----------------------------------------------------------------------------------

    def hold_irq(self, start_us: float, end_us: float) -> None:
        """Hold the GPIO interrupt off from start_us to end_us (emulated), as a long critical section with interrupts
        off does (a flash write): edges are latched meanwhile and the handler runs once the hold ends, once per pin
        whatever the number of edges, so a pin with two or more edges in the hold loses some to its IRQ."""
        if end_us <= start_us:
            raise RigError(f"hold_irq needs start_us < end_us, not {start_us} and {end_us}")
        self._call("hold_irq", t0_ns=round(start_us * 1000), t1_ns=round(end_us * 1000))

    def pio_lag(self, us: float, at_us: float | None = None) -> None:
        """Make the PIO count late: its state machines are stepped only every `us` µs of emulated time, so an edge
        shows in a PIO edge counter up to that late (as rp2040js's own PIO stepping, on the wall clock, did). 0 (the
        default) steps them exactly. It applies from now on, or from emulated time at_us, and across resets."""
        if us < 0:
            raise RigError(f"pio_lag takes us >= 0, not {us}")
        self._call("pio_lag", ns=round(us * 1000), t_ns=None if at_us is None else round(at_us * 1000))

    def output(self, pin: int) -> int | None:
        """The level the firmware drives on a GPIO, or None when the pin is not an output."""
        out = self._call("pin", pin=pin)["out"]
        return None if out is None else int(out)

    def pin(self, pin: int) -> dict[str, Any]:
        """A GPIO as the chip sees it: output (bool), out, in, func (the IO_BANK0 function), pull."""
        return self._call("pin", pin=pin)

    def ir_carrier(self, second: bool = False) -> tuple[float, float | None]:
        """(frequency in Hz, duty 0..1) measured on the profile's IR carrier pin (`second`: ir_carrier2's) over its
        last 16 periods; (0, None) while the pin does not toggle."""
        pin = self.wiring.ir2_pin if second else self.wiring.ir_pin
        if pin is None:
            raise RigError(f"profile {self.wiring.profile} has no {'ir_carrier2' if second else 'ir_carrier'}")
        m = self._call("pwm", pin=pin)
        return float(m["freq_hz"]), None if m["duty"] is None else float(m["duty"])

    # -- USB, resets, flash ---------------------------------------------------------------------------------------

    def usb_reading(self, on: bool) -> None:
        """The USB host's reading switch: off, the host keeps the port open but takes no more IN packets (a program
        that opened the port and does not read), so the board's USB writes back up."""
        self._call("usb", reading=bool(on))

    def listen(self, heard: Callable[[bytes], None] | None) -> None:
        """Every byte the board sends on USB from now on, as a USB analyser between it and the host sees it (also
        while no program has the port open): `heard(chunk)` on the relay thread, so it must be quick. None stops.
        A listener that raises is dropped; listen_error() says why."""
        self._usb.tap = heard

    def listen_error(self) -> str | None:
        return self._usb.tap_error

    def wait_usb(self, timeout: float = 30.0) -> str:
        """Wait until the board is on the USB bus (its port exists); returns the port."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not (self._attached and self._usb.ready()):
                if self._dead is not None:
                    raise RigError(self._dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RigError(f"the board did not appear on USB within {timeout:.0f} s")
                self._cond.wait(min(left, 0.05))
        return self.port

    def reset(self, hold: bool = False) -> None:
        """Power-cycle the chip (the flash stays); hold=True keeps it stopped at the start until go()."""
        self._call("reset", hold=hold)

    def wait_reset(self, count: int, timeout: float = 60.0) -> dict[str, Any]:
        """Wait until the chip has been reset `count` times in all (machine.reset, a watchdog, reset()); returns the
        last reset {"cause", "n", "t_ns"}."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.resets) < count:
                if self._dead is not None:
                    raise RigError(self._dead)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RigError(f"the board did not reset within {timeout:.0f} s")
                self._cond.wait(left)
            return self.resets[count - 1]

    def save_flash(self, path: str | Path) -> None:
        """Write the 2 MiB flash (firmware and file system) to an image file that Pico(flash=...) starts from."""
        self._call("save_flash", path=str(Path(path).absolute()))

    def make_flash(self, board: str, timeout: float = 600.0, frozen: str | None = None) -> str:
        """Flash this board with the project's own `make flash BOARD=... PORT=<this port>`, paced to real time, and
        return make's output once the board is back on USB after the reset make flash ends with (make returns
        before the board resets; RESET_GRACE_S after make without a reset, it returns anyway). The board is left
        running, paced to real time. `frozen`: the MicroPython board of make firmware-frozen's image this board
        runs (the rig started from it): `make flash FIRMWARE=frozen FROZEN_BOARD=...`, the modules not copied."""
        self.go("realtime")
        self.wait_usb()
        before = len(self.resets)
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        cmd = ["make", "--no-print-directory", "-C", str(CHECKOUT), "flash", f"BOARD={board}", f"PORT={self.port}"]
        if frozen is not None:
            cmd += ["FIRMWARE=frozen", f"FROZEN_BOARD={frozen}"]
        if CHECKOUT is None:  # an installed flickboard: its own command, which `make flash` runs in a checkout
            if frozen is not None:
                raise RigError("a frozen firmware image is flashed from a checkout (make flash FIRMWARE=frozen)")
            cmd = [sys.executable, "-m", "flickboard.cli.main", "flash", "--board", board, "--port", self.port]
        try:
            done = lifecycle.run(cmd, env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RigError(f"make flash BOARD={board} did not finish within {timeout:.0f} s") from None
        out = done.stdout + done.stderr
        if done.returncode != 0:
            raise RigError(f"make flash BOARD={board} failed: {_last_words(out)}")
        try:  # make flash resets the board twice: into safe mode, then into the new firmware
            self.wait_reset(before + 2, timeout=self.RESET_GRACE_S)
        except RigError:
            if self._dead is not None:
                raise
        self.wait_usb()
        return out

    RESET_GRACE_S = 3.0

    def mpremote(self, *args: str, timeout: float = 120.0) -> str:
        """Run mpremote on this board's port (paced to real time while it runs); returns its output."""
        beside = Path(sys.executable).parent / "mpremote"
        exe = str(beside) if beside.exists() else shutil.which("mpremote")
        if not exe:
            raise RigError("mpremote is missing: run 'make board-tools' (or pip install mpremote)")
        self.go("realtime")
        self.wait_usb()
        try:
            done = lifecycle.run([exe, "connect", self.port, *args], timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RigError(f"mpremote {' '.join(args)} did not finish within {timeout:.0f} s") from None
        if done.returncode != 0:
            raise RigError(f"mpremote {' '.join(args)} failed: {_last_words(done.stdout + done.stderr)}")
        return done.stdout

    # -- the end ------------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the emulator and remove the port; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        _LIVE.discard(self)
        proc = self._proc
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()  # the emulator exits at end of input
            except OSError:
                pass
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        with self._cond:
            if self._dead is None:
                self._dead = "the emulated Pico was closed"
            self._cond.notify_all()
        self._usb.stop()
        if proc.stdout is not None:
            proc.stdout.close()
        self._stderr.close()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> Pico:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _UsbPort(threading.Thread):
    """The Pico's USB port as a pseudo-terminal: bytes both ways between it and the emulator's socket.

    The port exists while the board is on the USB bus: `attach(True)` makes a new pty and points `link` at it,
    `attach(False)` (a reset) closes it, so a program holding it sees the device go away, as with a real USB port;
    first, the bytes the board sent before the reset reach the port and the program gets up to DETACH_GRACE_S to
    read them (a real host reads them within microseconds, long before the device is gone), then the emulator hears
    "usb_gone" and starts the new chip. While no program has the port open the pty's master reads POLLHUP; the
    emulator's USB host hears of each change ("usb" open=...), and raises or drops DTR."""

    HUP_POLL_S = 0.01
    BACKLOG = 4096  # bytes waiting for the port before the socket stops being read (the emulator then holds IN)
    DETACH_GRACE_S = 1.0

    def __init__(self, sock: socket.socket, link: str, notify: Any) -> None:
        super().__init__(name="rp2-usb", daemon=True)
        self.sock = sock
        self.sock.setblocking(False)
        self.link = link
        self.notify = notify
        self._wake_r, self._wake_w = os.pipe()
        self._want: list[bool] = []
        self._stopping = False
        self._lock = threading.Lock()
        self.master: int | None = None
        self.is_open = False
        self._linked = False
        self.tap: Callable[[bytes], None] | None = None  # Pico.listen()
        self.tap_error: str | None = None

    def _heard(self, data: bytes) -> None:
        tap = self.tap
        if tap is not None:
            try:
                tap(data)
            except Exception as e:  # a listener's bug must not stop the USB relay: it is dropped, and said
                self.tap = None
                self.tap_error = f"the USB listener failed and was dropped: {type(e).__name__}: {e}"

    def attach(self, on: bool) -> None:
        with self._lock:
            self._want.append(on)
        os.write(self._wake_w, b"a")

    def ready(self) -> bool:
        return self._linked

    def stop(self) -> None:
        self._stopping = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"s")
        if self.is_alive() and threading.current_thread() is not self:
            self.join(5)
        self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.sock.close()

    def _open_pty(self) -> None:
        self._close_pty()
        master, slave = os.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        os.close(slave)
        fcntl.fcntl(master, fcntl.F_SETFL, fcntl.fcntl(master, fcntl.F_GETFL) | os.O_NONBLOCK)
        self.master = master
        tmp = f"{self.link}.new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(name, tmp)
        os.replace(tmp, self.link)  # atomically: a program never sees a half-made port
        self._linked = True
        self.is_open = False

    def _detach(self, to_port: bytearray) -> None:
        master = self.master
        if master is not None and self.is_open:
            while True:  # every byte the board sent before the reset is in the socket by now
                try:
                    data = self.sock.recv(65536)
                except BlockingIOError:
                    break
                if not data:
                    break
                self._heard(data)
                to_port += data
            self._deliver(master, to_port)
        to_port.clear()
        self._close_pty()
        self.notify("usb_gone")

    def _deliver(self, master: int, to_port: bytearray) -> None:
        """Write what is left to the port and wait (a little) until the program has read it."""
        try:
            slave = os.open(os.readlink(self.link), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            deadline = time.monotonic() + self.DETACH_GRACE_S
            quiet = 0
            while time.monotonic() < deadline and quiet < 2:
                if to_port:
                    try:
                        del to_port[: os.write(master, to_port)]
                    except OSError as e:
                        if e.errno != errno.EAGAIN:
                            return
                unread = struct.unpack("i", fcntl.ioctl(slave, termios.FIONREAD, b"\0\0\0\0"))[0]
                quiet = quiet + 1 if not to_port and unread == 0 else 0
                time.sleep(0.005)
        finally:
            os.close(slave)

    def _close_pty(self) -> None:
        if self._linked:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.link)
            self._linked = False
        if self.master is not None:
            os.close(self.master)
            self.master = None
        if self.is_open:
            self.is_open = False
            self.notify("usb", open=False)

    def run(self) -> None:
        to_port = bytearray()
        to_sock = bytearray()
        try:
            while not self._stopping:
                with self._lock:
                    wants, self._want = self._want, []
                for on in wants:
                    if on:
                        to_port.clear()
                        self._open_pty()
                    else:
                        self._detach(to_port)
                master = self.master
                if master is not None and not self.is_open and not _hung_up(master):
                    self.is_open = True
                    self.notify("usb", open=True)
                p = select.poll()
                p.register(self._wake_r, select.POLLIN)
                mask = select.POLLIN if len(to_port) < self.BACKLOG else 0
                if to_sock:
                    mask |= select.POLLOUT
                p.register(self.sock, mask)
                if master is not None and self.is_open:
                    p.register(master, select.POLLIN | (select.POLLOUT if to_port else 0))
                timeout = self.HUP_POLL_S * 1000 if master is not None and not self.is_open else None
                for fd, ev in p.poll(timeout):
                    if fd == self._wake_r:
                        os.read(self._wake_r, 64)
                    elif fd == self.sock.fileno():
                        if ev & select.POLLIN:
                            data = self.sock.recv(65536)
                            if not data:
                                return
                            self._heard(data)
                            if self.is_open:
                                to_port += data  # bytes for a closed port are lost, as on a real USB port
                        if ev & select.POLLOUT and to_sock:
                            n = _send(self.sock, to_sock)
                            del to_sock[:n]
                    elif fd == master:
                        if ev & select.POLLIN:
                            try:
                                to_sock += os.read(master, 4096)
                            except OSError as e:
                                if e.errno not in (errno.EIO, errno.EAGAIN):
                                    raise
                        if ev & select.POLLOUT and to_port:
                            try:
                                n = os.write(master, to_port)
                                del to_port[:n]
                            except OSError as e:
                                if e.errno not in (errno.EIO, errno.EAGAIN):
                                    raise
                        if ev & select.POLLHUP and not ev & select.POLLIN:
                            self.is_open = False
                            to_port.clear()
                            self.notify("usb", open=False)
                if to_sock:
                    n = _send(self.sock, to_sock)
                    del to_sock[:n]
        except OSError:
            return


def _last_words(output: str) -> str:
    """The line of a failed command's output that says why: its last line that is not make's own."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    said = [ln for ln in lines if not ln.startswith(("make: ***", "make[", "Traceback"))]
    return (said or lines or ["no output"])[-1]


def _hung_up(fd: int) -> bool:
    p = select.poll()
    p.register(fd, select.POLLIN)
    return any(ev & select.POLLHUP and not ev & select.POLLIN for _, ev in p.poll(0))


def _send(sock: socket.socket, data: bytearray) -> int:
    try:
        return sock.send(data)
    except BlockingIOError:
        return 0
