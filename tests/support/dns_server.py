"""A real DNS server for the firmware's lookups: dnsmasq on a free loopback UDP port, answering from a hosts file.

    with dnsmasq({"broker.flickboard.test": "127.0.0.1"}) as dns:
        dns.port, dns.queries("broker.flickboard.test"), dns.set({...})   # set() reloads the answers (SIGHUP)

It forwards nothing (`--no-resolv`): any other name is refused. Installed by `make test` (Debian: dnsmasq-base).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flickboard import lifecycle


def _exe() -> str:
    found = shutil.which("dnsmasq") or ("/usr/sbin/dnsmasq" if Path("/usr/sbin/dnsmasq").exists() else None)
    if found is None:
        raise RuntimeError("dnsmasq is not installed: run 'make test' (it installs dnsmasq-base)")
    return found


def _free_port() -> int:
    """A loopback port free for both UDP and TCP (dnsmasq listens on both)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.bind(("127.0.0.1", 0))
            port = int(u.getsockname()[1])
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
                try:
                    t.bind(("127.0.0.1", port))
                except OSError:
                    continue
        return port


class Dnsmasq:
    def __init__(self, names: dict[str, str]) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="flickboard-dns-"))
        self.hosts = self.dir / "hosts"
        self.log = self.dir / "dnsmasq.log"
        self._write(names)
        self._failure = ""
        for _attempt in range(5):  # a port free a moment ago may be taken by the time dnsmasq binds it: try another
            if self._start():
                return
        raise RuntimeError(f"dnsmasq did not start: {self._failure}")

    def _start(self) -> bool:
        """One start on a fresh port; False when the port was taken meanwhile."""
        self.port = _free_port()
        user = ["--user=root"] if os.geteuid() == 0 else []
        cmd = [_exe(), "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv", "--no-hosts",
               f"--addn-hosts={self.hosts}", f"--port={self.port}", "--listen-address=127.0.0.1", "--bind-interfaces",
               "--log-queries", f"--log-facility={self.log}", "--cache-size=0", "--local-ttl=0",
               f"--pid-file={self.dir / 'pid'}", *user]  # fmt: skip
        self.proc = lifecycle.spawn(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while "started" not in self._log_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                self._failure = err.strip() or self._log_text()
                lifecycle.end(self.proc)
                if "Address already in use" in self._failure:
                    return False
                raise RuntimeError(f"dnsmasq did not start: {self._failure}")
            time.sleep(0.02)
        return True

    def _write(self, names: dict[str, str]) -> None:
        self.hosts.write_text("".join(f"{ip} {name}\n" for name, ip in names.items()))

    def _log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def set(self, names: dict[str, str]) -> None:
        """Answer with these addresses from now on (dnsmasq re-reads its hosts file on SIGHUP)."""
        self._write(names)
        before = self._log_text().count("read ")
        self.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 5
        while self._log_text().count("read ") <= before and time.monotonic() < deadline:
            time.sleep(0.02)

    def queries(self, name: str) -> int:
        """How many A queries for `name` reached the server."""
        return sum(1 for ln in self._log_text().splitlines() if f"query[A] {name} " in ln)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@contextmanager
def dnsmasq(names: dict[str, str]) -> Iterator[Dnsmasq]:
    server = Dnsmasq(names)
    try:
        yield server
    finally:
        server.close()
