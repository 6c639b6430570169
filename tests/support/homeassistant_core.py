"""A real Home Assistant Core for `make ha`: the pinned release installed by tests/homeassistant/install.sh in a Debian
chroot (build/ha/root), run with a configuration of its own, onboarded and given its MQTT integration through its own
REST API, and read through its REST and websocket APIs (https://developers.home-assistant.io/docs/api/rest,
https://developers.home-assistant.io/docs/api/websocket).

    ha = HomeAssistantCore(ROOT / "build/ha/root", "run-1", port=18123)
    ha.start(); ha.wait_up(); ha.onboard(); ha.add_mqtt(broker_port)
    ha.states()                                  # GET /api/states
    ha.ws("config/entity_registry/list")         # one websocket command, its result
    ha.problems(("flickboard",))                 # the WARNING and ERROR records of its log that name a word
    ha.stop()

Nothing here copies Home Assistant: it is driven from outside, as a user's browser or script would."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import signal
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

CLIENT_ID = "http://127.0.0.1/"  # an onboarding client id is a URL (IndieAuth)
USER, PASSWORD = "flick", "flickboard-check-only"
CONFIG = """\
homeassistant:
  name: Flickboard check
  unit_system: metric
  time_zone: UTC
  country: FR
  currency: EUR
  elevation: 0
  latitude: 48.85
  longitude: 2.35
  language: en
frontend:
config:
api:
history:
logbook:
recorder:
  commit_interval: 1
automation: !include automations.yaml
search:
system_log:
logger:
  default: info
"""
# A record of home-assistant.log: "2026-11-24 10:00:00.123 WARNING (MainThread) [logger] message", then any lines of a
# traceback until the next record.
RECORD = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ (DEBUG|INFO|WARNING|ERROR|CRITICAL) \(([^)]*)\) \[([^\]]+)\] "
)


class HomeAssistantError(AssertionError):
    pass


class HomeAssistantCore:
    def __init__(self, root: Path, name: str, port: int) -> None:
        self.root = root
        self.inside = f"/{name}"  # the configuration folder as Home Assistant sees it
        self.config = root / name
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.token: str | None = None
        self.starts = 0

    # ---------------------------------------------------------------- the process

    def prepare(self) -> None:
        """A fresh configuration folder: configuration.yaml, and the HTTP port in `.storage/http` (a YAML `http:` would
        be a pending config that Home Assistant reverts after five minutes unless someone confirms it)."""
        if self.config.exists():
            if not (self.config / "configuration.yaml").exists():  # the chroot's own /dev, /etc, ...: never
                raise HomeAssistantError(f"{self.config} holds no Home Assistant configuration: pick another name")
            subprocess.run(["rm", "-rf", str(self.config)], check=True)
        (self.config / ".storage").mkdir(parents=True)
        (self.config / "configuration.yaml").write_text(CONFIG)
        (self.config / "automations.yaml").write_text("[]\n")  # the automation editor's file, as in a new install
        script = (
            "import json, sys\n"
            "from homeassistant.components.http.config import HTTP_STORAGE_SCHEMA, STORAGE_VERSION, "
            "STORAGE_MINOR_VERSION\n"
            f"stable = HTTP_STORAGE_SCHEMA({{'server_port': {self.port}, 'server_host': ['127.0.0.1']}})\n"
            "stable.update(created_at='2026-01-01T00:00:00+00:00', error=None, error_message=None)\n"
            "print(json.dumps({'version': STORAGE_VERSION, 'minor_version': STORAGE_MINOR_VERSION, 'key': 'http', "
            "'data': {'stable': stable, 'pending': None, 'yaml_migration_done': True}}, default=str))\n"
        )
        out = self.run_inside("/ha/bin/python", "-c", script)
        (self.config / ".storage" / "http").write_text(out)

    def command(self, *argv: str) -> list[str]:
        """`argv` run inside the chroot, in a mount namespace of its own (its /proc goes away with it), with nothing of
        this machine's environment but the certificates it trusts (install.sh copies them in)."""
        env = [
            "env",
            "-i",
            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME=/root",
            "LANG=C.UTF-8",
            "SSL_CERT_FILE=/etc/host-ca-certificates.crt",
            "PIP_CERT=/etc/host-ca-certificates.crt",
        ]
        return [*env, "unshare", "--mount", f"--mount-proc={self.root}/proc", "chroot", str(self.root), *argv]

    def run_inside(self, *argv: str) -> str:
        p = subprocess.run(self.command(*argv), capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise HomeAssistantError(f"{' '.join(argv[:2])} failed in the chroot: {p.stderr[-2000:]}")
        return p.stdout

    def version(self) -> str:
        return self.run_inside("/ha/bin/python", "-c", "import homeassistant.const as c; print(c.__version__)").strip()

    def python(self) -> str:
        return self.run_inside("/ha/bin/python", "-c", "import platform; print(platform.python_version())").strip()

    def start(self) -> None:
        assert self.proc is None, "already running"
        log = open(self.config / "stdout.log", "ab")  # noqa: SIM115  (closed with the process)
        argv = ["/ha/bin/python", "-m", "homeassistant", "-c", self.inside, "--log-rotate-days", "1"]
        self.proc = subprocess.Popen(self.command(*argv), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.starts += 1

    def wait_up(self, timeout: float = 600) -> None:
        """Until its API answers and it has finished starting (its core state `RUNNING`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                tail = (self.config / "stdout.log").read_text(errors="replace")[-3000:]
                raise HomeAssistantError(f"Home Assistant exited with {self.proc.returncode}:\n{tail}")
            with contextlib.suppress(OSError, urllib.error.URLError, HomeAssistantError, ValueError):
                if self.token is None:
                    self.rest("GET", "/api/onboarding", auth=False)
                    return
                if self.rest("GET", "/api/config").get("state") == "RUNNING":
                    return
            time.sleep(1)
        raise HomeAssistantError(f"Home Assistant did not come up on {self.url} in {timeout:g} s")

    def stop(self, timeout: float = 120) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(30)
        self.proc = None

    # ---------------------------------------------------------------- the REST API

    def rest(self, method: str, path: str, body: Any = None, *, auth: bool = True, form: bool = False) -> Any:
        headers = {}
        data = None
        if body is not None:
            if form:
                data = "&".join(f"{k}={urllib.request.quote(str(v))}" for k, v in body.items()).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
        if auth and self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                text = r.read().decode()
        except urllib.error.HTTPError as e:
            raise HomeAssistantError(f"{method} {path}: HTTP {e.code}: {e.read()[:500]!r}") from None
        return json.loads(text) if text else None

    def onboard(self) -> None:
        """The owner's account, the core config, analytics and the integration step, as the onboarding pages do; then
        a long-lived token for the rest of the run."""
        user = self.rest(
            "POST",
            "/api/onboarding/users",
            {"client_id": CLIENT_ID, "name": "Flick", "username": USER, "password": PASSWORD, "language": "en"},
            auth=False,
        )
        tokens = self.rest(
            "POST",
            "/auth/token",
            {"grant_type": "authorization_code", "code": user["auth_code"], "client_id": CLIENT_ID},
            auth=False,
            form=True,
        )
        self.token = tokens["access_token"]
        self.rest("POST", "/api/onboarding/core_config", {})
        self.rest("POST", "/api/onboarding/analytics", {})
        self.rest("POST", "/api/onboarding/integration", {"client_id": CLIENT_ID, "redirect_uri": CLIENT_ID})
        self.token = self.ws("auth/long_lived_access_token", client_name="flickboard check", lifespan=30)

    def add_mqtt(self, port: int) -> dict[str, Any]:
        """The MQTT integration on the broker, through the config flow a user goes through (Settings → Devices &
        services → Add integration → MQTT: the broker's host and port)."""
        flow = self.rest("POST", "/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
        while flow.get("type") == "form":
            answer = (
                {
                    "broker": "127.0.0.1",
                    "port": port,
                    "other_settings": {"set_client_cert": False, "set_ca_cert": "off"},
                }
                if flow["step_id"] == "broker"
                else {}
            )
            flow = self.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", answer)
        if flow.get("type") != "create_entry":
            raise HomeAssistantError(f"the MQTT config flow ended with {flow}")
        return dict(flow["result"])

    def states(self) -> dict[str, dict[str, Any]]:
        return {s["entity_id"]: s for s in self.rest("GET", "/api/states")}

    def press(self, entity_id: str) -> None:
        self.rest("POST", "/api/services/button/press", {"entity_id": entity_id})

    # ---------------------------------------------------------------- the websocket API

    def ws(self, kind: str, **fields: Any) -> Any:
        """One websocket command; its result (a failed command raises)."""
        with Websocket(self.port, self.token or "") as w:
            return w.call(kind, **fields)

    # ---------------------------------------------------------------- the log

    def records(self) -> list[tuple[str, str, str]]:
        """(level, logger, the record with its traceback) of home-assistant.log."""
        path = self.config / "home-assistant.log"
        if not path.exists():
            return []
        out: list[tuple[str, str, str]] = []
        for line in path.read_text(errors="replace").splitlines():
            m = RECORD.match(line)
            if m:
                out.append((m.group(1), m.group(3), line))
            elif out:
                level, logger, text = out[-1]
                out[-1] = (level, logger, text + "\n" + line)
        return out

    def problems(self, words: tuple[str, ...], loggers: tuple[str, ...] = ()) -> list[str]:
        """Every WARNING, ERROR or CRITICAL record that names one of `words` or comes from one of `loggers`."""
        return [
            text
            for level, logger, text in self.records()
            if level in ("WARNING", "ERROR", "CRITICAL")
            and (any(w in text.lower() for w in words) or any(logger.startswith(lg) for lg in loggers))
        ]


class Websocket:
    """A websocket client of Home Assistant's API in a few lines of the standard library (RFC 6455: a client masks its
    frames; Home Assistant sends text frames)."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.token = token
        self.sock: socket.socket | None = None
        self.n = 0
        self.buf = b""

    def __enter__(self) -> Websocket:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(
            (
                f"GET /api/websocket HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        while b"\r\n\r\n" not in self.buf:
            chunk = s.recv(4096)
            if not chunk:
                raise HomeAssistantError("the websocket closed during the handshake")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise HomeAssistantError(f"websocket handshake refused: {head[:200]!r}")
        self.sock = s
        hello = self.receive()
        assert hello["type"] == "auth_required", hello
        self.send({"type": "auth", "access_token": self.token})
        ok = self.receive()
        if ok["type"] != "auth_ok":
            raise HomeAssistantError(f"websocket auth refused: {ok}")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.sock is not None:
            self.sock.close()

    def send(self, doc: dict[str, Any]) -> None:
        assert self.sock is not None
        data = json.dumps(doc).encode()
        head = bytes([0x81])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n: int) -> bytes:
        assert self.sock is not None
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise HomeAssistantError("the websocket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def receive(self) -> dict[str, Any]:
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise HomeAssistantError("the websocket was closed by Home Assistant")
            if opcode in (0x9, 0xA):  # ping, pong: not ours to answer here (short-lived connections)
                continue
            message += payload
            if b0 & 0x80:
                return dict(json.loads(message))

    def call(self, kind: str, **fields: Any) -> Any:
        self.n += 1
        self.send({"id": self.n, "type": kind, **fields})
        while True:
            answer = self.receive()
            if answer.get("id") == self.n and answer.get("type") == "result":
                if not answer.get("success"):
                    raise HomeAssistantError(f"{kind}: {answer.get('error')}")
                return answer.get("result")
