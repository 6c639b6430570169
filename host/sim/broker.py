"""A private Mosquitto broker on a free loopback port, with its own configuration in a temporary directory: for
`make demo` (a board, a bridge and the scoreboards need a broker between them) and for the tests (a real
broker, never a mock).

    with mosquitto() as broker:          # started; stopped and its files removed on the way out
        broker.url                       # "mqtt://127.0.0.1:PORT"
        broker.restart()                 # stop and start again on the same port (reconnect tests)
        broker.crash()                   # the same after a kill -9: with persistence, from its last autosave

`start_mosquitto()` is the same without the `with`: call `close()` when done. Mosquitto comes from the
distribution packages (`make test` and `make demo` install it); every failure is a `BrokerError` whose message
is one line for the user.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flickboard import lifecycle

HOST = "127.0.0.1"
START_TIMEOUT_S = 10.0


class BrokerError(RuntimeError):
    """The broker could not be started; str() is one line for the user."""


def find_mosquitto() -> str | None:
    """The mosquitto binary: on PATH, or in /usr/sbin where Debian puts it (often not on a user's PATH)."""
    found = shutil.which("mosquitto")
    if found:
        return found
    sbin = Path("/usr/sbin/mosquitto")
    return str(sbin) if sbin.exists() else None


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _bindable(port: int, host: str = HOST) -> bool:
    """Whether nobody listens on the loopback port (a socket in TIME_WAIT after a restart does not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _reason(log: Path) -> str:
    """Why mosquitto stopped, from its log: its first error line (without the timestamp), else its last line."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    lines = [re.sub(r"^\d+: ", "", ln.strip()) for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("Error")]
    if errors:
        return errors[0]
    return lines[-1] if lines else ""


class Broker:
    """A running Mosquitto: `host`, `port`, `url`; `stop()`, `restart()`, `close()`."""

    def __init__(self, exe: str, port: int, extra_conf: str = "", host: str = HOST) -> None:
        self.exe = exe
        self.host = host
        self.port = port
        self._dir = tempfile.TemporaryDirectory(prefix="flickboard-mosquitto-")
        self.conf = Path(self._dir.name) / "mosquitto.conf"
        self.log = Path(self._dir.name) / "mosquitto.log"
        # Started as root, mosquitto switches to the `mosquitto` user unless told to stay: it could then no longer
        # read this private configuration. As anyone else it cannot switch, and a `user` line is not needed.
        user = "user root\n" if os.geteuid() == 0 else ""
        self.conf.write_text(f"listener {port} {host}\nallow_anonymous true\npersistence false\n{user}{extra_conf}\n")
        self.proc: subprocess.Popen[bytes] | None = None
        try:
            self._start()
        except BrokerError:
            self._dir.cleanup()
            raise

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def _start(self) -> None:
        if not _bindable(self.port, self.host):  # else the check below would find the other listener and look fine
            raise BrokerError(f"cannot start mosquitto: port {self.port} on {self.host} is already in use")
        with self.log.open("ab") as log:  # the child keeps its own copy of the descriptor
            proc = lifecycle.spawn(
                [self.exe, "-c", str(self.conf)], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        self.proc = proc
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                why = _reason(self.log) or f"exit code {proc.returncode}"
                raise BrokerError(f"mosquitto stopped as it started (port {self.port}): {why}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    pass
            except OSError:
                time.sleep(0.02)
                continue
            if proc.poll() is None:
                return
        self.stop()
        raise BrokerError(f"mosquitto did not listen on port {self.port} within {START_TIMEOUT_S:g} s")

    def stop(self) -> None:
        """Stop the broker process (its files stay, so `restart()` works)."""
        lifecycle.end(self.proc)

    def restart(self) -> None:
        """Stop and start again on the same port, with the same configuration (e.g. to test reconnects)."""
        self.stop()
        self._start()

    def crash(self) -> None:
        """`kill -9` the broker, as a power cut would (it saves nothing on the way out: with persistence it starts
        again from its last autosave), and start it again on the same port and configuration."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._start()

    def close(self) -> None:
        """Stop the broker and remove its configuration and log."""
        self.stop()
        self._dir.cleanup()


def start_mosquitto(extra_conf: str = "", port: int | None = None, host: str = HOST) -> Broker:
    """A new broker on `port` (default: a free one) of the loopback address `host`; `extra_conf`: more
    mosquitto.conf lines. Raises BrokerError."""
    exe = find_mosquitto()
    if exe is None:
        raise BrokerError("Mosquitto is not installed: sudo apt-get install mosquitto (make test/make demo install it)")
    return Broker(exe, free_port() if port is None else port, extra_conf, host)


@contextmanager
def mosquitto(extra_conf: str = "", port: int | None = None, host: str = HOST) -> Iterator[Broker]:
    """A broker for the duration of the `with` block."""
    broker = start_mosquitto(extra_conf, port, host)
    try:
        yield broker
    finally:
        broker.close()
