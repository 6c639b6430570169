"""The secured broker of docs/security.md, for real: Mosquitto started from docs/mosquitto/mosquitto.conf and
docs/mosquitto/acl (only the paths and ports changed for the test), a password file made with mosquitto_passwd,
and a certificate authority and server certificate made at test time by docs/mosquitto/make-certs.sh (openssl).

Anonymous clients and wrong passwords are refused; each user can do exactly what the ACL says and nothing more;
no login can take another program's client id (the broker uses the user name as the client id), so neither a board's
nor a display's password can push the bridge process off the broker or throw its persistent session away; the TLS
listener needs the club's CA; a whole game plays through it (the real firmware under MicroPython with its board's
credentials, the bridge process over TLS); no password ends up in a log, a journal or a published document.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import ssl
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from e2e import SHOT_MS, BridgeProc, Watcher, game, proto, replay_summary
from faults import Tap, prefix, score_matches, tap_stdout
from paho.mqtt.enums import CallbackAPIVersion
from secure_broker import EXAMPLE, SecureBroker

from flickboard.core import journal
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.broker import find_mosquitto
from flickboard.sim.driver import Driver
from flickboard.sim.simulator import spawn_board

ROOT = Path(__file__).resolve().parents[2]
USERS = ("flickboard-bridge", "display", "scorer", "web", "integrations", "table-1", "table-2")
MAX_PACKET = 262144  # docs/mosquitto/mosquitto.conf max_packet_size


@pytest.fixture(scope="module")
def secure() -> Iterator[SecureBroker]:
    exe = find_mosquitto()
    assert exe is not None, "Mosquitto is not installed (make test installs it)"
    b = SecureBroker(exe, USERS)
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
        client_id: str | None = None,
        clean: bool = True,
    ) -> None:
        """`client_id`: the id it asks for (default: a fresh one); `clean`: a clean session."""
        self.got: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.rc: Any = None
        self.granted: list[Any] = []
        self.drops: list[str] = []  # the disconnections it did not ask for, with the reason
        self.closing = False
        cid = client_id if client_id is not None else f"sec-{user}-{uuid.uuid4().hex[:6]}"
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=cid, clean_session=clean)
        if user is not None:
            c.username_pw_set(user, broker.passwords[user] if password is None else password)
        if tls:
            c.tls_set(ca_certs=str(broker.ca) if ca == "default" else (None if ca is None else str(ca)))
        c.on_connect = self._connect
        c.on_message = self._message
        c.on_subscribe = self._subscribed
        c.on_disconnect = self._disconnected
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

    def _disconnected(self, _c: Any, _u: Any, _f: Any, rc: Any, _p: Any) -> None:
        with self.cond:
            if not self.closing:
                self.drops.append(str(rc))
            self.cond.notify_all()

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
        with self.cond:
            self.closing = True
        self.c.disconnect()
        self.c.loop_stop()


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
    """One client per user (a second login as the same user would replace the first: see the takeover tests)."""
    bridge = Client(
        secure, "flickboard-bridge", subscribe=("flickboard/+/raw", "flickboard/+/input", "flickboard/+/status")
    )
    display = Client(secure, "display", subscribe=("flickboard/+/scoreboard", "flickboard/+/events"))
    spied = ("flickboard/+/scoreboard", "flickboard/+/input")  # a board reads neither
    board1 = Client(
        secure, "table-1", tls=False, subscribe=("flickboard/table-1/cmd", "flickboard/table-2/cmd", *spied)
    )
    board2 = Client(secure, "table-2", tls=False, subscribe=("flickboard/table-2/cmd",))
    scorer = Client(secure, "scorer", subscribe=("flickboard/+/result",))
    web = Client(secure, "web", subscribe=("flickboard/+/result", "flickboard/+/raw", "flickboard/bridge/health"))
    integrations = Client(secure, "integrations", subscribe=("flickboard/+/input", "flickboard/+/result"))
    clients = (bridge, display, board1, board2, scorer, web, integrations)
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
        integrations.pub("flickboard/table-1/input", b'{"line":"undo"}')  # home automation cannot enter scores
        integrations.pub("flickboard/table-1/scoreboard", b"forged by the integrations")
        integrations.pub("homeassistant/sensor/flickboard_table-1/score/config", b"{}")  # its own topic
        bridge.pub("flickboard/table-1/raw", b"forged by the bridge")  # the bridge speaks for no board
        bridge.pub("flickboard/table-1/cmd", b'{"c":"ping"}')
        bridge.pub("flickboard/table-2/cmd", b'{"c":"ping"}')
        bridge.pub("flickboard/table-1/scoreboard", b"real scoreboard")
        bridge.pub("flickboard/table-1/result", b"answer")
        scorer.pub("flickboard/table-1/raw", b"forged by a scorer")
        scorer.pub("flickboard/table-1/scoreboard", b"forged by a scorer")
        scorer.pub("flickboard/table-1/input", b'{"line":"hit"}')
        web.pub("flickboard/table-1/cmd", b'{"c":"reboot"}')  # the web server commands no board
        web.pub("flickboard/table-1/input", b'{"line":"miss"}')  # ... and sends the phone page's entries
        board2.pub("flickboard/table-2/raw", b"marker-2")

        wanted = {b"marker-1", b"marker-2", b'{"line":"hit"}', b'{"line":"miss"}'}
        assert bridge.wait(lambda: wanted <= {p for _, p in bridge.got}, 15)
        assert display.wait(lambda: b"real scoreboard" in [p for _, p in display.got], 15)
        assert board1.wait(lambda: len(board1.got) >= 1, 15) and board2.wait(lambda: len(board2.got) >= 1, 15)
        assert scorer.wait(lambda: len(scorer.got) >= 1, 15) and web.wait(lambda: len(web.got) >= 1, 15)
        time.sleep(0.3)  # anything forbidden would have arrived by now
        assert sorted(p for _, p in bridge.got) == sorted(wanted), bridge.got
        assert [p for _, p in display.got] == [b"real scoreboard"], display.got
        assert board1.got == [("flickboard/table-1/cmd", b'{"c":"ping"}')], board1.got
        assert board2.got == [("flickboard/table-2/cmd", b'{"c":"ping"}')], board2.got
        assert scorer.got == [("flickboard/table-1/result", b"answer")], scorer.got
        assert web.got == [("flickboard/table-1/result", b"answer")], web.got
        assert integrations.got == [], integrations.got
        assert all(not c.drops for c in clients), [c.drops for c in clients]
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


# ------------------------------------------------------------------------------------------------- client ids

# The client ids the programs send (host/: the bridge's default, the firmware's `flickboard-<board_id>`, the web
# server's and `flickboard enter`'s own with a random tail, here fixed so an attacker on the old set-up knows them).
VICTIMS = (
    ("flickboard-bridge", True, "flickboard-bridge"),
    ("table-2", False, "flickboard-table-2"),
    ("web", True, "flickboard-web-0a1b2c3d4e"),
    ("scorer", True, "flickboard-cli-0a1b2c3d"),
)
ATTACKERS = (("table-1", False), ("display", True))  # a board's password (plain MQTT) and a display's (TLS)


def attack(secure: SecureBroker, user: str, tls: bool, claimed: str, clean: bool = True, hold: float = 0.2) -> str:
    """Log in as `user` asking for the client id `claimed`, stay `hold` s, leave; the broker's answer."""
    a = Client(secure, user, tls=tls, client_id=claimed, clean=clean)
    if a.rc == "ok":
        time.sleep(hold)
        a.close()
    return str(a.rc)


def test_no_login_takes_another_programs_client_id(secure: SecureBroker) -> None:
    """A board's credentials and a display's log in asking for the client id of the bridge, of another board, of the
    web server and of a scorer's terminal (the id the program sends, and its user name): every attacker is let in
    as itself, and no victim is disconnected. A second login as the same user does replace the first."""
    victims = [Client(secure, user, tls=tls, client_id=cid, clean=False) for user, tls, cid in VICTIMS]
    tries = []
    try:
        assert [v.rc for v in victims] == ["ok"] * len(victims)
        for attacker, tls in ATTACKERS:
            for user, _, cid in VICTIMS:
                for claimed in (cid, user):
                    tries.append(attack(secure, attacker, tls, claimed))
        time.sleep(0.3)
        assert tries == ["ok"] * len(tries) == ["ok"] * 16  # each attacker got in (as itself)
        assert [v.drops for v in victims] == [[]] * len(victims), "a victim was pushed off the broker"
        assert all(v.c.is_connected() for v in victims)
    finally:
        for v in victims:
            v.close()
    # the rule the documentation states: one program per user, a second login replaces the first
    first = Client(secure, "table-2", tls=False, client_id="flickboard-table-2")
    second = Client(secure, "table-2", tls=False, client_id="some-other-id")
    try:
        assert first.rc == second.rc == "ok"
        assert first.wait(lambda: bool(first.drops), 5), "two logins of one user both stayed connected"
    finally:
        first.close()
        second.close()
    log = secure.log.read_text()
    assert "as flickboard-bridge" in log and "as table-1 (" in log, "the broker names each client by its user"


def _bridge(secure: SecureBroker, tmp: Path, name: str) -> BridgeProc:
    """The real `flickboard bridge` over TLS as `flickboard-bridge`, with its default client id."""
    url = f"mqtts://flickboard-bridge:{secure.passwords['flickboard-bridge']}@localhost:{secure.tls_port}"
    d = tmp / name
    d.mkdir()
    args = ["--mqtt", url, "--ca-file", str(secure.ca), "--boards", "table-1", "--journals", str(d / "journals")]
    return BridgeProc([*args, "--players", "Ana", "Ben", "--match", "games:1", "--log-level", "INFO"], d)


def _health(watcher: Client, pred: Any, timeout: float = 15) -> dict[str, Any]:
    """The newest bridge health document `watcher` received that satisfies `pred`."""
    found: list[dict[str, Any]] = []

    def ok() -> bool:
        for topic, payload in reversed(watcher.got):
            if topic == "flickboard/bridge/health":
                doc = json.loads(payload)
                if pred(doc):
                    found.append(doc)
                    return True
        return False

    assert watcher.wait(ok, timeout), [json.loads(p) for t, p in watcher.got if t.endswith("/health")][-1:]
    return found[0]


def _board(doc: dict[str, Any], board: str) -> dict[str, Any]:
    return dict(doc["protocol"]["boards"].get(board) or {})


def _mqtt_link(doc: dict[str, Any]) -> dict[str, Any]:
    return next(v for k, v in doc["links"].items() if k.startswith("mqtt"))


ATTACK_ROUNDS = 20
OWN_STATUS = "flickboard/bridge/flickboard-bridge/status"  # the bridge's own: its id comes from its client id (user)


def test_the_bridge_stays_online_while_boards_and_displays_claim_its_client_id(
    secure: SecureBroker, tmp_path: Path
) -> None:
    """The real bridge process, with its default client id `flickboard-bridge`: a board's and a display's logins ask
    for that id 20 times each. The bridge keeps its one connection and its retained status stays `online`."""
    status = Client(secure, "scorer", subscribe=(OWN_STATUS,))
    bridge = _bridge(secure, tmp_path, "bridge")
    try:
        online = (OWN_STATUS, b"online")
        assert status.wait(lambda: online in status.got, 15), bridge.output()
        before = status.got.index(online)  # (a bridge of an earlier test may have left its `offline`)
        answers = [
            attack(secure, user, tls, "flickboard-bridge", hold=0.1)
            for _ in range(ATTACK_ROUNDS)
            for user, tls in ATTACKERS
        ]
        assert answers == ["ok"] * 2 * ATTACK_ROUNDS
        time.sleep(1.5)  # a bridge pushed off reconnects after 1 s: it would have said so by now
        said = [p for t, p in status.got[before:] if t == OWN_STATUS]
        assert said == [b"online"], f"displays saw the bridge go {said}"
        out = bridge.output()
        assert out.count(": connected (") == 1 and ": disconnected" not in out, out[-3000:]
    finally:
        status.close()
        bridge.stop()
    assert "Traceback" not in bridge.output()


def test_the_bridges_persistent_session_survives_logins_that_claim_its_client_id(
    secure: SecureBroker, tmp_path: Path
) -> None:
    """While the real bridge is down, a board's messages wait for it in its persistent session. A board's and a
    display's logins ask for its client id with a clean session, which would throw that session away: the bridge,
    started again, gets every message all the same."""
    status = Client(secure, "scorer", subscribe=(OWN_STATUS,))
    bridge = _bridge(secure, tmp_path, "bridge")
    board = watcher = None
    try:
        assert status.wait(lambda: (OWN_STATUS, b"online") in status.got, 15), bridge.output()
        bridge.kill9()
        assert status.wait(lambda: status.got[-1] == (OWN_STATUS, b"offline"), 10)  # its last will
        board = Client(secure, "table-1", tls=False, client_id="flickboard-table-1")
        enc = proto.Encoder("table-1", 7, 0)
        enc.hello(0, "1", "pico_w", [], "power")
        board.pub("flickboard/table-1/raw", enc.last_json.encode())
        for i in range(1, 4):
            enc.event("pass", "hole", 1000 * i, {"dur_us": 900})
            board.pub("flickboard/table-1/raw", enc.last_json.encode())
        for user, tls in (("table-2", False), ("display", True)):  # (table-1 would replace the board itself)
            assert attack(secure, user, tls, "flickboard-bridge", clean=True) == "ok"
        bridge.start()
        watcher = Client(secure, "display", subscribe=("flickboard/bridge/health",))
        doc = _health(watcher, lambda d: _board(d, "table-1").get("received") == 4)
        assert _board(doc, "table-1")["boot"] == 7 and _board(doc, "table-1")["missing"] == []
    finally:
        for c in (status, board, watcher):
            if c is not None:
                c.close()
        bridge.stop()
    assert "Traceback" not in bridge.output()


# ------------------------------------------------------------------------------------------------- sizes


def _varint(n: int) -> bytes:
    """MQTT's remaining length."""
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _mqtt_str(s: str) -> bytes:
    b = s.encode()
    return len(b).to_bytes(2, "big") + b


def _rss_kb(pid: int) -> int:
    """A process's resident memory, kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def _raw_login(secure: SecureBroker, user: str) -> socket.socket:
    """A bare MQTT 3.1.1 connection to the boards' listener, logged in as `user` (CONNACK checked)."""
    body = _mqtt_str("MQTT") + bytes([4, 0xC2, 0, 30]) + _mqtt_str("x") + _mqtt_str(user)
    body += _mqtt_str(secure.passwords[user])
    s = socket.create_connection((secure.host, secure.port), timeout=5)
    s.sendall(b"\x10" + _varint(len(body)) + body)
    assert s.recv(4) == b"\x20\x02\x00\x00", "not logged in"
    return s


def test_an_oversized_publish_is_refused_and_the_bridge_never_sees_it(secure: SecureBroker, tmp_path: Path) -> None:
    """max_packet_size: a publish that announces 100 MB is refused as soon as its length is read (the broker closes
    the connection without reading the rest); a board's and the web server's publishes just over the limit, on topics
    they may write, disconnect them and reach nobody; one just under the limit is delivered. The real bridge
    process stays connected and online, and what it hears next is the next legitimate message."""
    status = Client(secure, "scorer", subscribe=(OWN_STATUS,))
    bridge = _bridge(secure, tmp_path, "bridge")
    clients: list[Client] = [status]
    try:
        online = (OWN_STATUS, b"online")
        assert status.wait(lambda: online in status.got, 15), bridge.output()
        before = status.got.index(online)
        # the largest publish the broker takes, and the smallest it refuses: Mosquitto 2.0 counts a packet as its
        # remaining length (topic and payload) + 1, leaving out the length field itself
        ha = Client(secure, "integrations", subscribe=("homeassistant/status",))
        clients.append(ha)
        topic = "homeassistant/status"
        fits = MAX_PACKET - 1 - 2 - len(topic)  # remaining length MAX_PACKET - 1
        ha.c.publish(topic, b"f" * fits, qos=0)
        assert ha.wait(lambda: len(ha.got) == 1, 10) and len(ha.got[0][1]) == fits
        ha.c.publish(topic, b"o" * (fits + 1), qos=0)
        assert ha.wait(lambda: bool(ha.drops), 10), "a packet over max_packet_size was taken"

        # 100 MB announced: refused on reading the length (only 1 KB of it is ever sent)
        assert secure.proc is not None
        rss = _rss_kb(secure.proc.pid)
        s = _raw_login(secure, "table-1")
        started = time.monotonic()
        head = _mqtt_str("flickboard/table-1/raw")
        s.sendall(b"\x30" + _varint(len(head) + 100_000_000) + head + bytes(1024))
        try:
            closed = s.recv(1) == b""
        except ConnectionResetError:
            closed = True
        except TimeoutError:
            closed = False
        s.close()
        assert closed, "the broker waited for the rest of a 100 MB publish"
        assert time.monotonic() - started < 0.5
        assert _rss_kb(secure.proc.pid) - rss < 10_000, "the broker's memory grew by 10 MB"

        # just over the limit, by a board on its own events topic and by the web server on an input topic
        for user, tls, where in (
            ("table-1", False, "flickboard/table-1/raw"),
            ("web", True, "flickboard/table-1/input"),
        ):
            a = Client(secure, user, tls=tls)
            clients.append(a)
            assert a.rc == "ok"
            a.c.publish(where, b"{" + b" " * MAX_PACKET + b"}", qos=0)
            assert a.wait(lambda a=a: bool(a.drops), 10), f"{user}: an oversized publish was taken"
            a.close()

        # the bridge: still on its first connection, still online, and it heard nothing of it
        board = Client(secure, "table-1", tls=False, client_id="flickboard-table-1")
        clients.append(board)
        enc = proto.Encoder("table-1", 3, 0)
        enc.hello(0, "1", "pico_w", [], "power")
        board.pub("flickboard/table-1/raw", enc.last_json.encode())
        watcher = Client(secure, "display", subscribe=("flickboard/bridge/health",))
        clients.append(watcher)
        doc = _health(watcher, lambda d: _board(d, "table-1").get("received") == 1)
        link = _mqtt_link(doc)
        assert link["payloads"] == 1 and link["refused_oversized"] == 0, link
        said = [p for t, p in status.got[before:] if t == OWN_STATUS]
        assert said == [b"online"], f"displays saw the bridge go {said}"
        out = bridge.output()
        assert out.count(": connected (") == 1 and ": disconnected" not in out, out[-3000:]
    finally:
        for c in clients:
            c.close()
        bridge.stop()
    assert "Traceback" not in bridge.output()


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
