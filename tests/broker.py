"""A real Mosquitto broker for tests, started on a free loopback port with its own config (principle 7).

`make test` installs Mosquitto from the distribution packages; this module only starts and stops it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mosquitto_exe() -> str:
    found = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
    if not found:
        raise RuntimeError("mosquitto is missing: run 'make test' (it installs it from the distribution packages)")
    return found


@dataclass
class Broker:
    host: str
    port: int
    proc: subprocess.Popen[bytes]
    conf: Path

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def restart(self) -> None:
        """Stop and start again on the same port (e.g. to test reconnects)."""
        self.stop()
        self.proc = _start(self.conf, self.port)


def _start(conf: Path, port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([mosquitto_exe(), "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            raise RuntimeError(f"mosquitto exited at start: {out}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise RuntimeError(f"mosquitto did not listen on port {port} within 10 s")


@contextmanager
def mosquitto(extra_conf: str = "") -> Iterator[Broker]:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="fb-mosquitto-") as d:
        conf = Path(d) / "mosquitto.conf"
        conf.write_text(
            f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nuser root\n{extra_conf}\n"
        )
        broker = Broker("127.0.0.1", port, _start(conf, port), conf)
        try:
            yield broker
        finally:
            broker.stop()
