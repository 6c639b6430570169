"""The secured broker of docs/security.md, for real: Mosquitto started from docs/mosquitto/mosquitto.conf and
docs/mosquitto/acl as shipped (only the paths and ports changed for the test), a password file made with
mosquitto_passwd for the users given (passwords generated here), and a certificate authority and server certificate
made at test time by docs/mosquitto/make-certs.sh (openssl)."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from flickboard.sim.broker import Broker, free_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "mosquitto"


class SecureBroker(Broker):
    """Mosquitto run from the example configuration: `port` is the boards' listener (password, no TLS),
    `tls_port` the TLS listener; `passwords[user]` the users' passwords; `ca` the CA certificate."""

    def __init__(self, exe: str, users: tuple[str, ...]) -> None:
        self.exe = exe
        self.host = "127.0.0.1"
        self.port = free_port()
        self.tls_port = free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="flickboard-secure-mosquitto-")
        d = Path(self._dir.name)
        self.conf = d / "mosquitto.conf"
        self.log = d / "mosquitto.log"
        self.proc = None
        etc = d / "etc"
        etc.mkdir()
        (d / "db").mkdir()
        made = subprocess.run(
            ["sh", str(EXAMPLE / "make-certs.sh"), str(etc), "localhost", "127.0.0.1"], capture_output=True, text=True
        )
        assert made.returncode == 0, made.stderr
        self.ca = etc / "ca.crt"
        shutil.copy(EXAMPLE / "acl", etc / "acl")
        self.passwords = {u: secrets.token_urlsafe(12) for u in users}
        pwfile = etc / "passwords"
        for i, (user, pw) in enumerate(self.passwords.items()):
            args = ["mosquitto_passwd", "-b", *(["-c"] if i == 0 else []), str(pwfile), user, pw]
            p = subprocess.run(args, capture_output=True, text=True)
            assert p.returncode == 0, p.stderr
        text = (EXAMPLE / "mosquitto.conf").read_text()
        assert "listener 1883\n" in text and "listener 8883\n" in text
        text = text.replace("/etc/mosquitto/flickboard/", f"{etc}/").replace("/var/lib/mosquitto/", f"{d}/db/")
        text = text.replace("listener 1883\n", f"listener {self.port} 127.0.0.1\n")
        text = text.replace("listener 8883\n", f"listener {self.tls_port} 127.0.0.1\n")
        if os.geteuid() == 0:
            text += "user root\n"
        text += f"log_dest file {self.log}\n"
        self.conf.write_text(text)
        self._start()
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection((self.host, self.tls_port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, self.log.read_text()
                time.sleep(0.02)
