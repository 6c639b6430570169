"""The secured broker of docs/security.md, for real: Mosquitto started from docs/mosquitto/mosquitto.conf and
docs/mosquitto/acl (only the paths and ports changed for the test), a password file made with mosquitto_passwd,
and a certificate authority and server certificate made at test time by docs/mosquitto/make-certs.sh (openssl).

Anonymous clients and wrong passwords are refused; each user can do exactly what the ACL says and nothing more;
the TLS listener needs the club's CA; a whole game plays through it (the real firmware under MicroPython with its
board's credentials, the bridge process over TLS); no password ends up in a log, a journal or a published document.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from e2e import SHOT_MS, BridgeProc, Watcher, game, replay_summary
from faults import Tap, prefix, score_matches, tap_stdout
from paho.mqtt.enums import CallbackAPIVersion

from host.core import journal
from host.sim.board_scenario import from_transcript
from host.sim.broker import Broker, find_mosquitto, free_port
from host.sim.driver import Driver
from host.sim.simulator import spawn_board
from rules.transcript import parse_transcript

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "mosquitto"
USERS = ("flickboard-bridge", "display", "scorer", "table-1", "table-2")


class SecureBroker(Broker):
    """Mosquitto run from the example configuration: `port` is the boards' listener (password, no TLS),
    `tls_port` the TLS listener; `passwords[user]` the users' passwords; `ca` the CA certificate."""

    def __init__(self, exe: str) -> None:
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
        self.passwords = {u: secrets.token_urlsafe(12) for u in USERS}
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


@pytest.fixture(scope="module")
def secure() -> Iterator[SecureBroker]:
    exe = find_mosquitto()
    assert exe is not None, "Mosquitto is not installed (make test installs it)"
    b = SecureBroker(exe)
    try:
        yield b
    finally:
        b.close()


class Client:
    """A paho client as `user` (None: anonymous), on the TLS listener or the plain one; `rc` is the broker's
    answer to the connection (None: no answer, e.g. the TLS handshake failed); `got` what it received."""

    def __init__(
        self,
        broker: SecureBroker,
        user: str | None,
        password: str | None = None,
        tls: bool = True,
        ca: Path | str | None = "default",
        subscribe: tuple[str, ...] = (),
    ) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.rc: Any = None
        self.granted: list[Any] = []
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"sec-{user}-{uuid.uuid4().hex[:6]}")
        if user is not None:
            c.username_pw_set(user, broker.passwords[user] if password is None else password)
        if tls:
            c.tls_set(ca_certs=str(broker.ca) if ca == "default" else (None if ca is None else str(ca)))
        c.on_connect = self._connect
        c.on_message = self._message
        c.on_subscribe = self._subscribed
        self.topics = subscribe
        self.c = c
        try:
            c.connect(broker.host, broker.tls_port if tls else broker.port, keepalive=10)
        except (OSError, ssl.SSLError) as e:
            self.rc = f"connect failed: {e}"
            return
        c.loop_start()
        self.wait(lambda: self.rc is not None and (self.granted or not subscribe or self.rc != "ok"), 15)

    def _connect(self, c: mqtt.Client, _u: Any, _f: Any, rc: Any, _p: Any) -> None:
        with self.cond:
            self.rc = "ok" if not rc.is_failure else str(rc)
            self.cond.notify_all()
        if not rc.is_failure and self.topics:
            c.subscribe([(t, 1) for t in self.topics])

    def _subscribed(self, _c: Any, _u: Any, _mid: Any, codes: Any, _p: Any) -> None:
        with self.cond:
            self.granted = list(codes)
            self.cond.notify_all()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.got.append((msg.topic, msg.payload))
            self.cond.notify_all()

    def wait(self, pred: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True

    def pub(self, topic: str, payload: bytes) -> None:
        self.c.publish(topic, payload, qos=1).wait_for_publish(5)

    def topics_got(self) -> set[str]:
        with self.cond:
            return {t for t, _ in self.got}

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def test_anonymous_and_wrong_passwords_are_refused(secure: SecureBroker) -> None:
    for tls in (True, False):
        anon = Client(secure, None, tls=tls)
        wrong = Client(secure, "table-1", password="not-the-password", tls=tls)
        nobody = Client(secure, "table-1", password="", tls=tls)
        right = Client(secure, "table-1", tls=tls)
        try:
            assert anon.rc not in (None, "ok") and wrong.rc not in (None, "ok") and nobody.rc not in (None, "ok")
            assert right.rc == "ok"
        finally:
            for c in (anon, wrong, nobody, right):
                if c.rc == "ok":
                    c.close()
    # the broker logs the refusals, without the password tried
    log = secure.log.read_text()
    assert "not-the-password" not in log and all(pw not in log for pw in secure.passwords.values())


def test_tls_needs_the_clubs_ca(secure: SecureBroker, tmp_path: Path) -> None:
    other = tmp_path / "other"
    made = subprocess.run(["sh", str(EXAMPLE / "make-certs.sh"), str(other), "localhost"], capture_output=True)
    assert made.returncode == 0
    good = Client(secure, "display")
    wrong_ca = Client(secure, "display", ca=other / "ca.crt")  # a certificate from someone else's CA
    system_ca = Client(secure, "display", ca=None)  # the operating system's trust store does not know the club's CA
    try:
        assert good.rc == "ok"
        assert wrong_ca.rc not in (None, "ok") and "certificate verify failed" in str(wrong_ca.rc)
        assert system_ca.rc not in (None, "ok") and "certificate verify failed" in str(system_ca.rc)
    finally:
        good.close()
    # plain MQTT on the TLS port gets no answer, and nothing in clear text crosses it
    with socket.create_connection((secure.host, secure.tls_port), timeout=5) as s:
        s.sendall(b"\x10\x0c\x00\x04MQTT\x04\x02\x00\x0a\x00\x00")  # CONNECT, clean session, empty client id
        s.settimeout(5)
        try:
            answer = s.recv(16)
        except (TimeoutError, ConnectionResetError):
            answer = b""
    assert not answer.startswith(b"\x20"), "a CONNACK in clear text on the TLS listener"


def test_each_user_can_do_what_the_acl_says_and_nothing_more(secure: SecureBroker) -> None:
    bridge = Client(
        secure, "flickboard-bridge", subscribe=("flickboard/+/raw", "flickboard/+/input", "flickboard/+/status")
    )
    display = Client(secure, "display", subscribe=("flickboard/+/scoreboard", "flickboard/+/events"))
    board1 = Client(secure, "table-1", tls=False, subscribe=("flickboard/table-1/cmd", "flickboard/table-2/cmd"))
    board1_spy = Client(secure, "table-1", tls=False, subscribe=("flickboard/+/scoreboard", "flickboard/+/input"))
    board2 = Client(secure, "table-2", tls=False, subscribe=("flickboard/table-2/cmd",))
    scorer = Client(secure, "scorer", subscribe=("flickboard/+/result",))
    clients = (bridge, display, board1, board1_spy, board2, scorer)
    try:
        assert all(c.rc == "ok" for c in clients), [c.rc for c in clients]
        # forbidden first, then the allowed marker on the same connection: the marker proves delivery happened
        board1.pub("flickboard/table-2/raw", b"forged by table-1")  # another board's events
        board1.pub("flickboard/table-1/input", b'{"line":"shot call in"}')  # a board cannot enter scores
        board1.pub("flickboard/table-1/scoreboard", b"forged scoreboard")
        board1.pub("flickboard/table-1/raw", b"marker-1")
        display.pub("flickboard/table-1/input", b'{"line":"undo"}')  # a display cannot enter scores
        display.pub("flickboard/table-1/raw", b"forged by a display")
        display.pub("flickboard/table-1/cmd", b'{"c":"reboot"}')
        display.pub("flickboard/table-1/scoreboard", b"forged by a display")
        bridge.pub("flickboard/table-1/raw", b"forged by the bridge")  # the bridge speaks for no board
        bridge.pub("flickboard/table-1/cmd", b'{"c":"ping"}')
        bridge.pub("flickboard/table-2/cmd", b'{"c":"ping"}')
        bridge.pub("flickboard/table-1/scoreboard", b"real scoreboard")
        bridge.pub("flickboard/table-1/result", b"answer")
        scorer.pub("flickboard/table-1/raw", b"forged by a scorer")
        scorer.pub("flickboard/table-1/scoreboard", b"forged by a scorer")
        scorer.pub("flickboard/table-1/input", b'{"line":"hit"}')
        board2.pub("flickboard/table-2/raw", b"marker-2")

        assert bridge.wait(lambda: {b"marker-1", b"marker-2", b'{"line":"hit"}'} <= {p for _, p in bridge.got}, 15)
        assert display.wait(lambda: b"real scoreboard" in [p for _, p in display.got], 15)
        assert board1.wait(lambda: len(board1.got) >= 1, 15) and board2.wait(lambda: len(board2.got) >= 1, 15)
        assert scorer.wait(lambda: len(scorer.got) >= 1, 15)
        time.sleep(0.3)  # anything forbidden would have arrived by now
        assert sorted(p for _, p in bridge.got) == sorted([b"marker-1", b"marker-2", b'{"line":"hit"}']), bridge.got
        assert [p for _, p in display.got] == [b"real scoreboard"], display.got
        assert board1.got == [("flickboard/table-1/cmd", b'{"c":"ping"}')], board1.got
        assert board2.got == [("flickboard/table-2/cmd", b'{"c":"ping"}')], board2.got
        assert board1_spy.got == [], board1_spy.got
        assert scorer.got == [("flickboard/table-1/result", b"answer")], scorer.got
    finally:
        for c in clients:
            c.close()


def test_a_game_through_the_secured_broker_leaks_no_secret(secure: SecureBroker, tmp_path: Path) -> None:
    """The real firmware (MicroPython) logs in as table-1 on the boards' listener; the bridge process logs in over
    TLS, follows only table-1, and a scorer enters over TLS. A board with valid credentials that the bridge does
    not follow is never scored. No password is in the bridge's output, the journal or anything published."""
    transcript = prefix(game(11), 8)
    control = tmp_path / "control"
    control.mkdir()
    scenario = from_transcript(parse_transcript(transcript), board_id="table-1", holds=True, shot_ms=SHOT_MS)
    pw = secure.passwords
    scenario["control"] = str(control)
    scenario["mqtt"] = {"host": "127.0.0.1", "port": secure.port, "user": "table-1", "password": pw["table-1"]}
    board = spawn_board(scenario, realtime=False, pty=False, stdout=subprocess.PIPE)
    tap = Tap()
    tap_stdout(board.proc, tap)
    journals = tmp_path / "journals"
    url = f"mqtts://flickboard-bridge:{pw['flickboard-bridge']}@localhost:{secure.tls_port}"
    args = ["--mqtt", url, "--ca-file", str(secure.ca), "--boards", "table-1", "--journals", str(journals)]
    bridge = BridgeProc(
        [*args, "--players", "Ana", "Ben", "--match", "games:1", "--client-id", "sec-bridge", "--log-level", "DEBUG"],
        tmp_path,
    )
    ca = str(secure.ca)
    scorer = Watcher(secure.tls_port, "table-1", ("scorer", pw["scorer"]), ca)
    display = Watcher(secure.tls_port, "table-1", ("display", pw["display"]), ca)
    stranger = Client(secure, "table-2", tls=False)
    try:
        Driver(transcript, control, scorer.enter, scorer.processed, timeout=60).run()
        stranger.pub("flickboard/table-2/raw", b'{"v":1,"b":"table-2","bt":1,"s":1,"t":0,"m":"hello"}')
        entries = len(journal.read(str(next((journals / "table-1").glob("*.jsonl")))).records)
        assert display.wait(lambda w: w.scoreboard is not None and w.scoreboard["entries"] == entries), bridge.output()[
            -2000:
        ]
        assert display.scoreboard is not None
        final = display.scoreboard
        assert score_matches(final["score"], replay_summary(transcript, tmp_path))
        health = display.health
        assert health is not None
        published = json.dumps([final, health, scorer.results, scorer.moments])
    finally:
        stranger.close()
        scorer.close()
        display.close()
        bridge.stop()
        board.stop()
    assert sorted(p.name for p in journals.iterdir()) == ["table-1"], "a board the bridge does not follow was scored"
    out = bridge.output()
    assert "Traceback" not in out and "connected" in out
    stored = "".join(p.read_text() for p in journals.rglob("*.jsonl"))
    board_lines = "".join(m.raw for m in tap.msgs)
    for secret in pw.values():
        assert secret not in out, "a password in the bridge's output"
        assert secret not in stored, "a password in a journal"
        assert secret not in published, "a password in a published document"
        assert secret not in board_lines, "a password in what the board sent"
    assert f"mqtts://flickboard-bridge:***@localhost:{secure.tls_port}" in out  # the link is named, masked


def test_board_secrets_stay_out_of_git() -> None:
    """The board's Wi-Fi and broker secrets live in firmware/config.json, which git ignores; the template in git
    holds placeholders only."""
    if not (ROOT / ".git").exists():
        pytest.fail("not a git checkout: cannot check what git ignores")
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "firmware/config.json"])
    assert ignored.returncode == 0, "firmware/config.json is not ignored by git"
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True).stdout.split()
    assert "firmware/config.json" not in tracked
    assert not [t for t in tracked if t.endswith(("passwords", ".key", "passwd"))], "a secret file is tracked"
    example = json.loads((ROOT / "firmware" / "config.example.json").read_text())
    assert example["wifi"]["password"].startswith("YOUR-") and example["mqtt"]["password"] is None


def test_a_board_told_to_use_tls_says_it_cannot_and_sends_no_password(tmp_path: Path) -> None:
    """The firmware's MQTT client has no TLS. A board whose config.json asks for TLS must not fall back to plain
    MQTT with its password: fb.app.run (the path a real board takes, under MicroPython with a stand-in `machine`)
    reports a `fault` over USB and never opens a connection to the broker."""
    from board_lines import STAND_IN_MACHINE, frame, parse
    from firmware_runner import FIRMWARE, micropython_exe

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.5)
    (tmp_path / "machine.py").write_text(STAND_IN_MACHINE)
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "pico_w.json").write_text((ROOT / "hardware" / "profiles" / "pico_w.json").read_text())
    secret = secrets.token_urlsafe(12)
    config = {
        "board_id": "table-1",
        "wifi": {"ssid": "club", "password": "wifi-" + secret},
        "mqtt": {"host": "127.0.0.1", "port": listener.getsockname()[1], "user": "table-1", "password": secret},
    }
    script = f"""
from fb import app
try:
    app.run({{"profile": "pico_w"}}, {str(tmp_path) + "/"!r})
except SystemExit:
    pass
"""
    env = {**os.environ, "MICROPYPATH": f"{tmp_path}:{FIRMWARE}:.frozen"}
    outputs = {}
    for tls in (True, False):
        (tmp_path / "config.json").write_text(json.dumps({**config, "mqtt": {**config["mqtt"], "tls": tls}}))
        board = subprocess.Popen(
            [micropython_exe(), "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        try:
            conn, _ = listener.accept()
            conn.close()
            connected = True
        except TimeoutError:
            connected = False
        out, _ = board.communicate(frame({"c": "reboot", "id": 1}), timeout=30)
        outputs[tls] = (connected, [parse(ln) for ln in out.splitlines() if ln.startswith("FB1|")])
    listener.close()
    connected, msgs = outputs[True]
    assert not connected, "a board told to use TLS connected in plain MQTT"
    faults = [m for m in msgs if m["m"] == "fault" and m["code"] == "config"]  # (this port also has no PIO: a
    assert faults and "mqtt.tls" in faults[0]["msg"], msgs  # `counter` fault comes first)
    assert outputs[False][0], "the same board without TLS connects (the test can tell)"
    assert all(secret not in json.dumps(m) for _, ms in outputs.values() for m in ms), "a password on the console"
