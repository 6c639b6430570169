"""`flickboard web` against an attacker (docs/displays.md, "Who can score"): a real `flickboard web` process as the
operator starts it, a real Mosquitto, a real bridge in this process, and requests written byte by byte on a socket, as
an attacker would send them: no scoring key, a wrong one, a forged or `null` Origin, a Host that is not the server's
(DNS rebinding), a burst of 300 entries, a 100 MB MQTT message while the server's memory is watched, retained moments
and answers. Then the way in for the club: a scorer's phone (a real headless Chromium) enters the key once and scores;
the TV page needs nothing.

Every refusal must be a one-line reason to the client, one line on the operator's terminal for its kind, counted, and
never a change of score.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from web_rig import BOARD, Chromium, WebProcess

from flickboard.cli.bridge import Running, start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.sim.broker import Broker

MB = 1 << 20
ROOT = Path(__file__).resolve().parents[2]


class Scene:
    """A bridge for board t1 and `flickboard web` (its own process) on one broker."""

    def __init__(self, broker: Broker, tmp: Path, boards: tuple[str, ...] = (BOARD,), *web_args: str) -> None:
        self.broker = broker
        cfg = BridgeConfig(
            mqtt=parse_mqtt_url(broker.url),
            boards=boards,
            journals=str(tmp / "journals"),
            players=("Ana", "Ben"),
            client_id=f"web-attack-{uuid.uuid4().hex[:8]}",
        )
        self.running: Running = start_bridge(cfg)
        assert self.running.mqtt is not None and self.running.mqtt.wait_ready(10), "the bridge did not connect"
        self.closed = False
        self.web: WebProcess | None = None
        self.web = WebProcess(broker, *(w for b in boards for w in ("--board", b)), *web_args)
        self.wait(lambda: self.get(f"/api/{BOARD}/scoreboard")[0] == 200, "the web server's first scoreboard")

    @property
    def port(self) -> int:
        assert self.web is not None
        return self.web.port

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def records(self, board: str = BOARD) -> list[dict[str, Any]]:
        recs: list[dict[str, Any]] = self.running.bridge.games[board].session.journal.records
        return recs

    def wait(self, pred: Any, what: str, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not pred():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.02)

    def raw(
        self, method: str, path: str, headers: dict[str, str], body: bytes = b"", source: str = "127.0.0.1"
    ) -> tuple[int, dict[str, str], bytes]:
        """One HTTP/1.1 request written by hand on a socket (so Host and Origin are what we say): status, headers,
        body."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=20, source_address=(source, 0)) as s:
            head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            if method == "POST":
                head += f"Content-Length: {len(body)}\r\n"
            s.sendall(f"{head}Connection: close\r\n\r\n".encode() + body)
            data = b""
            while chunk := s.recv(1 << 16):
                data += chunk
        top, _, rest = data.partition(b"\r\n\r\n")
        lines = top.decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        return int(lines[0].split()[1]), fields, rest

    def get(self, path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
        return self.raw("GET", path, {"Host": host or self.host})

    def entry(self, line: str, board: str = BOARD, **headers: str | None) -> tuple[int, dict[str, str], dict[str, Any]]:
        """POST an entry as the entry page does (Host, Origin, JSON, the key header); `headers` replace or (None)
        leave out some of them. The answer must be one line of JSON."""
        assert self.web is not None
        base: dict[str, str | None] = {
            "Host": self.host,
            "Origin": f"http://{self.host}",
            "Content-Type": "application/json",
            "X-Flickboard-Key": self.web.key,
        }
        base.update({k.replace("_", "-"): v for k, v in headers.items()})
        sent = {k: v for k, v in base.items() if v is not None}
        source = sent.pop("source", "127.0.0.1")
        status, fields, body = self.raw(
            "POST", f"/api/{board}/input", sent, json.dumps({"line": line}).encode(), source
        )
        doc = json.loads(body)
        assert isinstance(doc, dict) and "\n" not in doc.get("error", ""), doc
        return status, fields, doc

    def close(self) -> str:
        """Stop both (again: nothing more); what the web server wrote on its terminal's stdout."""
        out = self.web.stop() if self.web is not None else ""
        if not self.closed:
            self.closed = True
            self.running.stop()
        return out


@pytest.fixture
def scene(broker: Broker, tmp_path: Path) -> Iterator[Scene]:
    s = Scene(broker, tmp_path)
    try:
        yield s
    finally:
        s.close()


def publish(broker: Broker, topic: str, payloads: list[bytes], retain: bool = False) -> None:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"attacker-{uuid.uuid4().hex[:6]}")
    c.connect(broker.host, broker.port)
    c.loop_start()
    try:
        for p in payloads:
            c.publish(topic, p, qos=1, retain=retain).wait_for_publish(30)
    finally:
        c.loop_stop()
        c.disconnect()


def refused_once(web: WebProcess, kind: str) -> str:
    """The one terminal line for a kind of refusal (the next ones are counted, not repeated)."""
    web.wait_said(f"refused ({kind})")  # its stderr is read by a thread of this process: give it the time
    lines = web.said(f"refused ({kind})")
    assert len(lines) == 1, (kind, web.errors)
    assert "Traceback" not in "\n".join(web.errors)
    return lines[0]


# ---------------------------------------------------------------- raw HTTP


def test_entries_need_the_scoring_key_and_wrong_keys_are_throttled(scene: Scene) -> None:
    assert scene.web is not None
    assert re.fullmatch(r"[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}", scene.web.key), scene.web.out
    assert scene.web.link == f"{scene.web.url}/scorer?key={scene.web.key.replace('-', '')}"
    status, _, doc = scene.entry("shot zone", X_Flickboard_Key=None)
    assert status == 401 and "scoring key" in doc["error"] and doc["refused"] == "no scoring key"
    for _ in range(5):  # a guesser: five wrong keys are answered as wrong...
        status, _, doc = scene.entry("shot zone", X_Flickboard_Key="AAAA-BBBB")
        assert status == 403 and doc["error"].startswith("wrong scoring key"), doc
    status, fields, doc = scene.entry("shot zone")  # ...then even the right key waits: guessing goes no faster
    assert status == 429 and "too many wrong scoring keys" in doc["error"] and int(fields["retry-after"]) >= 1
    status, _, doc = scene.entry("shot zone", source="127.0.0.2")  # another phone is not held up by it
    assert status == 200 and doc["ok"] is True, doc
    status, fields, doc = scene.entry(
        "shot zone", source="127.0.0.2", X_Flickboard_Key=None, Cookie="flickboard_key=OLDKEY99"
    )
    assert status == 403 and doc["refused"] == "wrong scoring key"
    assert fields["set-cookie"] == "flickboard_key=; Path=/; Max-Age=0"  # an old key is forgotten, not retried
    assert [r["in"] for r in scene.records()] == ["shot zone"]  # only the entry with the key reached the journal
    assert scene.running.bridge.inputs["invalid"] == 0
    for kind in ("no scoring key", "wrong scoring key", "wrong keys throttled"):
        refused_once(scene.web, kind)
    out = scene.close()
    assert "Scoring key: " + scene.web.key in out
    assert any(
        "refused so far:" in s and "wrong scoring key 6" in s and "no scoring key 1" in s for s in scene.web.errors
    ), scene.web.errors


def test_foreign_origin_and_rebinding_host_are_refused_and_the_tv_needs_nothing(scene: Scene) -> None:
    assert scene.web is not None
    for origin, fragment in [
        (None, "no Origin header"),
        ("null", "Origin null"),
        ("http://evil.example", "another site"),
        (f"http://{scene.host}.evil.example", "another site"),
    ]:
        status, _, doc = scene.entry("shot zone", Origin=origin)
        assert status == 403 and fragment in doc["error"] and doc["refused"] == "foreign Origin", (origin, doc)
    # DNS rebinding: the attacker's name now points at this server; the browser sends that name as Host
    for path in [f"/tv/{BOARD}", f"/api/{BOARD}/scoreboard", "/api/boards", "/"]:
        status, _, body = scene.get(path, host=f"rebind.evil.example:{scene.port}")
        assert status == 421 and b"does not answer for the name 'rebind.evil.example'" in body, (path, body)
    status, _, doc = scene.entry("shot zone", Host="rebind.evil.example", Origin="http://rebind.evil.example")
    assert status == 421 and doc["refused"] == "unknown Host"
    # terminal escapes, for the log: 7-bit ones are not HTTP (the server's parser refuses the request, 400, counted);
    # 8-bit ones (the C1 CSI) are read as they are and said as `?`
    status, _, body = scene.raw("POST", f"/api/{BOARD}/input", {"Host": scene.host, "Origin": "http://\x1b[2Jevil"})
    assert status == 400 and b"\x1b" not in body
    status, _, doc = scene.entry("shot zone", Origin="http://\x9b2J\x9b31mevil")
    assert status == 403 and doc["refused"] == "foreign Origin"
    status, _, body = scene.raw("GET", "/api/boards", {})  # no Host at all
    assert status == 400 and b"no Host header" in body
    status, _, body = scene.get("/api/boards", host=f"evil.example@{scene.host}")  # not localhost in disguise
    assert status == 421 and b"bad Host header" in body
    assert scene.records() == []
    # the TV and every read-only path: no key, by name or by address
    for host in (scene.host, f"localhost:{scene.port}"):
        for path in [f"/tv/{BOARD}", f"/api/{BOARD}/scoreboard", "/api/boards", "/api/rules", "/static/tv.js", "/"]:
            status, _, body = scene.get(path, host=host)
            assert status == 200, (host, path, body[:200])
    status, _, body = scene.get("/api/scorer")
    assert status == 200 and json.loads(body) == {"scorer": False}
    status, _, body = scene.get(f"/tv/{BOARD}")
    assert scene.web.key.encode() not in body and b"key" not in body.lower()  # the TV never shows the key
    refused_once(scene.web, "foreign Origin")
    line = refused_once(scene.web, "unknown Host")
    assert "rebind.evil.example" in line
    status, _, body = scene.get("/scorer?key=\x1b[2J\x1b]0;owned\x07")  # escapes in the path, for the log
    assert status == 400 and b"\x1b" not in body  # not HTTP: the parser refuses it
    assert "Invalid HTTP request" in refused_once(scene.web, "bad HTTP request")
    status, _, body = scene.get("/scorer?key=%1B[2J%1B]0;owned%07")  # escaped, as a browser sends them
    assert status == 403 and b"wrong scoring key" in body
    assert "/scorer?key=%1B[2J%1B]0;owned%07" in refused_once(scene.web, "wrong scoring key")
    scene.close()
    assert not any("\x1b" in line for line in scene.web.errors), scene.web.errors  # never reaches the terminal


def test_a_burst_of_300_entries_is_limited_per_client_and_per_board(scene: Scene) -> None:
    started = time.monotonic()
    answers = [scene.entry(f"penalty {'Ana' if i % 2 else 'Ben'}") for i in range(300)]
    took = time.monotonic() - started
    codes = [a[0] for a in answers]
    accepted = codes.count(200)
    most = 20 + int(2 * took) + 1  # the board's 20 at once, and 2 a second while the burst lasted
    assert 20 <= accepted <= most and codes.count(429) == 300 - accepted, (accepted, took)
    limited = [a for a in answers if a[0] == 429]
    assert all(int(f["retry-after"]) >= 1 and "too many entries" in d["error"] for _, f, d in limited)
    assert "wait 1 s and send it again (nothing was sent)" in limited[-1][2]["error"]
    assert len(scene.records()) == accepted  # each refused one changed nothing
    # another client for the same board is held by the board's own limit: at once, but for what the board regained
    # since the burst's end (2 a second: on a loaded machine the burst's last answers can take a while)
    ended = time.monotonic()
    let_in = 0
    for _ in range(40):
        status, _, doc = scene.entry("penalty Ana", source="127.0.0.3")
        if status != 200:
            break
        let_in += 1
    assert status == 429 and "for board t1" in doc["error"], doc
    assert let_in <= 1 + 2 * (time.monotonic() - ended), let_in
    time.sleep(1.1)  # the limit is a rate: a scorer who waits is let in again
    status, _, doc = scene.entry("penalty Ana", source="127.0.0.3")
    assert status == 200, doc
    assert scene.web is not None
    refused_once(scene.web, "too many entries")


def test_the_operator_sets_the_key_or_keeps_it_across_restarts(broker: Broker, tmp_path: Path) -> None:
    kept = tmp_path / "web-key"
    first = WebProcess(broker, "--key-file", str(kept))
    first.stop()
    assert "(new, kept in" in "\n".join(first.out) and kept.stat().st_mode & 0o777 == 0o600
    second = WebProcess(broker, "--key-file", str(kept))
    second.stop()
    assert second.key == first.key == kept.read_text().strip() and f"(from {kept})" in "\n".join(second.out)
    club = WebProcess(broker, env={"FLICKBOARD_WEB_KEY": "club-night-2026"})
    try:
        assert club.key == "club-night-2026" and club.link.endswith("/scorer?key=CLUBNIGHT2026")
        host = f"127.0.0.1:{club.port}"
        headers = {"Host": host, "Origin": f"http://{host}", "Content-Type": "application/json"}
        with socket.create_connection(("127.0.0.1", club.port), timeout=10) as s:
            body = b'{"key": "Club Night 2026"}'  # typed on a phone: spaces and lower case are fine
            head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            s.sendall(f"POST /api/key HTTP/1.1\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
            answer = s.recv(4096).decode()
        assert answer.startswith("HTTP/1.0 200") or answer.startswith("HTTP/1.1 200"), answer
        fields = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in answer.split("\r\n")[1:])}
        cookie = fields["set-cookie"]
        assert cookie.startswith("flickboard_key=CLUBNIGHT2026; Path=/;") and "HttpOnly; SameSite=Strict" in cookie
    finally:
        club.stop()
    for env, args, fragment in [
        ({"FLICKBOARD_WEB_KEY": "1234"}, [], "FLICKBOARD_WEB_KEY: a scoring key is 8 to 64 letters and digits"),
        ({"FLICKBOARD_WEB_KEY": "club-night-2026"}, ["--key-file", str(kept)], "give the scoring key one way"),
        ({}, ["--key-file", str(tmp_path / "no" / "dir")], "cannot write it"),
    ]:
        full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
        p = subprocess.run(
            [sys.executable, "-m", "flickboard.displays.web", "--mqtt", broker.url, *args],
            cwd=ROOT,
            env=full,
            capture_output=True,
            text=True,
            timeout=30,
        )
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1 and fragment in lines[0], (env, args, p.stderr)


# ---------------------------------------------------------------- the MQTT side


def test_a_100_mb_message_is_dropped_unread_and_the_server_stays_small(scene: Scene) -> None:
    assert scene.web is not None
    before = scene.web.memory_peak()
    publish(scene.broker, f"flickboard/{BOARD}/scoreboard", [b"{" + b" " * (100 * MB) + b"}"])
    # 24 more just over the limit, at QoS 1: the broker holds 20 unacknowledged for a client, then queues the rest,
    # so the scoreboard after them arrives only if the server acknowledged each one it dropped
    publish(scene.broker, f"flickboard/{BOARD}/events", [b"x" * (MB + 100)] * 24)
    line = scene.web.wait_said("refused (oversized MQTT message)")
    assert "104857602 bytes on flickboard/t1/scoreboard" in line and "dropped unread" in line
    assert scene.running.bridge.submit(BOARD, "shot zone").accepted
    scene.wait(
        lambda: json.loads(scene.get(f"/api/{BOARD}/scoreboard")[2]).get("entries") == 1, "the next scoreboard", 20
    )
    grown = scene.web.memory_peak() - before
    assert grown < 30 * MB, f"flickboard web grew by {grown / MB:.0f} MB reading a 100 MB message"
    refused_once(scene.web, "oversized MQTT message")
    scene.close()
    assert any("oversized MQTT message 25" in s for s in scene.web.errors), scene.web.errors


def test_retained_moments_and_answers_are_not_news(broker: Broker, tmp_path: Path) -> None:
    forged = {"format": "flickboard-moment", "type": "penalty", "side": "Ana", "board": BOARD, "entry": 99}
    publish(broker, f"flickboard/{BOARD}/events", [json.dumps(forged).encode()], retain=True)
    publish(broker, f"flickboard/{BOARD}/result", [b'{"id": "web-0", "ok": true, "entry": 5}'], retain=True)
    scene = Scene(broker, tmp_path)
    try:
        assert scene.web is not None
        scene.web.wait_said("refused (retained events message)")
        scene.web.wait_said("refused (retained result message)")
        stream = socket.create_connection(("127.0.0.1", scene.port), timeout=20)
        stream.sendall(f"GET /api/{BOARD}/stream HTTP/1.1\r\nHost: {scene.host}\r\n\r\n".encode())
        events = read_events(stream)
        assert next(events)[0] == "status" and next(events)[0] == "scoreboard"
        # the server's MQTT connection is taken over (same client id): it reconnects, subscribes again, and is sent
        # the retained messages again, while this page is open
        log = Path(broker.log).read_text()
        client_id = re.findall(r" as (flickboard-web-[0-9a-f]+)", log)[-1]
        kicker = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id)
        kicker.connect(broker.host, broker.port)
        kicker.disconnect()
        seen = until(events, lambda e, d: e == "status" and d["broker"] is False)
        seen += until(events, lambda e, d: e == "status" and d["broker"] is True)
        seen += until(events, lambda e, d: e == "scoreboard")  # the retained scoreboard: the moment came right after
        assert scene.running.bridge.submit(BOARD, "shot zone").accepted
        seen += until(events, lambda e, d: e == "moment" and d["type"] == "shot-end")
        moments = [d["type"] for e, d in seen if e == "moment"]
        assert moments == ["shot", "shot-end"], moments  # the bridge's two, not the forged penalty
        stream.close()
        scene.close()
        assert any("retained events message 2" in s for s in scene.web.errors), scene.web.errors
        refused_once(scene.web, "retained events message")
    finally:
        scene.close()


def read_events(sock: socket.socket) -> Iterator[tuple[str, Any]]:
    """(event, data) pairs of a Server-Sent Events response on `sock` (headers and comments skipped; an HTTP/1.1
    chunked body is taken out of its chunks)."""
    reader = sock.makefile("rb")
    chunked = False
    while (header := reader.readline()) not in (b"\r\n", b""):
        chunked |= header.lower().replace(b" ", b"") == b"transfer-encoding:chunked\r\n"
    event, data = "message", ""
    for raw in _body_lines(reader, chunked):
        line = raw.decode().rstrip("\r\n")
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif not line and data:
            yield event, json.loads(data)
            event, data = "message", ""


def _body_lines(reader: Any, chunked: bool) -> Iterator[bytes]:
    """The lines of a response body, read as they come."""
    if not chunked:
        yield from reader
        return
    pending = b""
    while size_line := reader.readline():
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return
        pending += reader.read(size)
        reader.readline()  # the CRLF after the chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line + b"\n"


def until(events: Iterator[tuple[str, Any]], pred: Any) -> list[tuple[str, Any]]:
    seen = []
    for event, data in events:
        seen.append((event, data))
        if pred(event, data):
            return seen
    raise AssertionError(f"the stream ended; seen {seen}")


# ---------------------------------------------------------------- the club's way in, in a real browser


def test_a_scorer_enters_the_key_once_and_the_tv_needs_none(scene: Scene, tmp_path: Path) -> None:
    assert scene.web is not None
    web = scene.web
    with Chromium() as browser:
        tv = browser.page(1280, 720)
        tv.goto(f"{web.url}/tv/{BOARD}")
        tv.wait("document.body.dataset.state === 'live' && document.body.dataset.entries === '0'")
        phone = browser.page(360, 740, mobile=True)
        phone.goto(f"{web.url}/enter/{BOARD}")
        phone.wait("document.body.dataset.scorer === 'no' && !document.getElementById('keyform').hidden")
        phone.wait("!!document.querySelector(\"#shot button[data-line='shot zone']\")")  # Ana's free shot is due
        phone.click("#shot button[data-line='shot zone']")  # no key yet: refused in words, the key form stays
        phone.wait("document.getElementById('answer').dataset.ok === 'false'")
        assert "to score, give this phone the scoring key" in phone.text("#answer") and scene.records() == []
        phone.type_text("#key", "ZZZZ-ZZZZ")
        phone.click("#key-send")
        phone.wait("document.getElementById('answer').innerText.includes('wrong scoring key')")
        phone.eval("document.getElementById('key').value = ''")
        phone.type_text("#key", web.key.lower())  # as a phone keyboard may type it
        phone.click("#key-send")
        phone.wait("document.body.dataset.scorer === 'yes' && document.getElementById('keyform').hidden")
        phone.click("#shot button[data-line='shot zone']")
        scene.wait(lambda: [r["in"] for r in scene.records()] == ["shot zone"], "the entry in the journal")
        tv.wait("document.body.dataset.entries === '1'")  # the TV follows, with no key
        phone.goto(f"{web.url}/enter/{BOARD}")  # the phone kept the key: no form again
        phone.wait("document.body.dataset.scorer === 'yes' && document.body.dataset.entries === '1'")
        phone.wait("!!document.querySelector(\"#shot button[data-line='shot hit']\")")  # Ben's contact shot
        phone.click("#shot button[data-line='shot hit']")
        scene.wait(lambda: scene.records()[-1]["in"] == "shot hit", "the second entry")
        # another phone gets in with the operator's link instead: it lands on the list of boards
        phone.clear_cookies()
        phone.goto(f"{web.url}/enter/{BOARD}")
        phone.wait("document.body.dataset.scorer === 'no'")
        phone.goto(web.link)
        assert phone.eval("location.pathname") == "/"
        phone.goto(f"{web.url}/enter/{BOARD}")
        phone.wait("document.body.dataset.scorer === 'yes' && document.body.dataset.state === 'live'")
        phone.click("#more button[data-line='undo']")
        phone.click("#more button[data-line='undo']")
        scene.wait(lambda: scene.records()[-1]["in"] == "undo", "the undo")
        assert tv.text("#live") == "LIVE"
        assert tv.errors == [] and [e for e in phone.errors if "401" not in e and "403" not in e] == []


# ---------------------------------------------------------------- roles: a scorer's key scores its own boards


def keys_command(keys: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`flickboard web --scorer-keys FILE --issue-key ... / --revoke-key ...`, as the organiser types it."""
    cmd = [sys.executable, "-m", "flickboard.displays.web", "--mqtt", "mqtt://127.0.0.1:1", "--scorer-keys", str(keys)]
    return subprocess.run([*cmd, *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_scorers_key_scores_only_the_boards_it_was_issued_for(broker: Broker, tmp_path: Path) -> None:
    keys = tmp_path / "scorers.keys"
    done = keys_command(keys, "--issue-key", "t1")
    assert done.returncode == 0 and done.stderr == "", done
    t1_key = re.search(r"scorer's key for t1: ([2-9A-Z]{4}-[2-9A-Z]{4})", done.stdout)
    assert t1_key is not None, done.stdout
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    scene = Scene(broker, tmp_path, ("t1", "t2"), "--scorer-keys", str(keys))
    try:
        assert scene.web is not None
        key = t1_key.group(1)
        status, _, doc = scene.entry("shot zone", "t1", X_Flickboard_Key=key)
        assert status == 200 and doc["ok"] is True, doc
        # the same phone, on the next table: refused in one line, nothing reaches that board's journal
        for _ in range(8):  # not a guess: a right key for another board is refused, never throttled
            status, _, doc = scene.entry("shot zone", "t2", X_Flickboard_Key=key)
            assert status == 403 and doc["refused"] == "key for other boards", doc
        assert "does not score board t2" in doc["error"] and "t1" in doc["error"]
        assert [r["in"] for r in scene.records("t2")] == []
        assert [r["in"] for r in scene.records("t1")] == ["shot zone"]
        # nor the console, nor a match started on another board
        assert scene.raw("GET", "/api/console", {"Host": scene.host, "X-Flickboard-Key": key})[0] == 403
        # a key for a list of boards, issued while the server runs: taken at once
        done = keys_command(keys, "--issue-key", "t1", "--issue-key", "t2")
        both = re.search(r"scorer's key for t1, t2: (\S+)", done.stdout)
        assert done.returncode == 0 and both is not None, done
        for board in ("t1", "t2"):  # (each answered by its bridge: t1 has had its free shot)
            status, _, doc = scene.entry("shot zone", board, X_Flickboard_Key=both.group(1))
            assert status == 200 and doc["board"] == board and "refused" not in doc, (board, doc)
        assert [r["in"] for r in scene.records("t2")] == ["shot zone"]
        t1_before = len(scene.records("t1"))
        # revoked: the key is no key any more
        done = keys_command(keys, "--revoke-key", key)
        assert done.returncode == 0 and "revoked" in done.stdout and "it scored t1" in done.stdout, done
        status, _, doc = scene.entry("shot zone", "t1", X_Flickboard_Key=key)
        assert status == 403 and doc["refused"] == "wrong scoring key", doc
        refused_once(scene.web, "key for other boards")
        # the organiser's key opens the console and scores nothing
        status, _, _body = scene.raw(
            "GET", "/api/console", {"Host": scene.host, "X-Flickboard-Key": scene.web.organiser_key}
        )
        assert status == 200
        status, _, doc = scene.entry("shot zone", "t1", X_Flickboard_Key=scene.web.organiser_key)
        assert status == 403 and doc["refused"] == "key for other boards" and "scores no board" in doc["error"]
        assert len(scene.records("t1")) == t1_before
    finally:
        scene.close()
    for bad in (["--issue-key", "bad id!"], ["--revoke-key", "ZZZZ-ZZZZ"]):
        done = keys_command(keys, *bad)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


# ---------------------------------------------------------------- one device, many live pages


def open_stream(port: int, source: str) -> tuple[socket.socket, bytes]:
    """One page's event stream from `source`: the socket and the start of its answer (status line and headers)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0))
    s.sendall(f"GET /api/{BOARD}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return s, data


def test_one_device_opening_many_live_pages_is_refused_at_once_and_the_room_still_sees(scene: Scene) -> None:
    """300 event streams from one address (the attack opened 10,000 in 21 s; `make bench` opens 10,000): the first
    16 are taken, every other one is refused at once with a plain reason, and a TV on another address still gets its
    stream."""
    assert scene.web is not None
    before = scene.web.memory_peak()
    held: list[socket.socket] = []
    codes: dict[int, int] = {}
    started = time.monotonic()
    try:
        for _ in range(300):
            s, head = open_stream(scene.port, "127.0.0.1")
            code = int(head.split(b" ", 2)[1]) if head else 0
            codes[code] = codes.get(code, 0) + 1
            if code == 200:
                held.append(s)
            else:
                assert b"too many live pages open from this device" in head + s.recv(4096), head
                s.close()
        took = time.monotonic() - started
        assert codes == {200: 16, 429: 284}, codes
        assert took < 30, f"300 tries took {took:.1f} s"
        tv = socket.create_connection(("127.0.0.1", scene.port), timeout=20, source_address=("127.0.0.9", 0))
        tv.sendall(f"GET /api/{BOARD}/stream HTTP/1.1\r\nHost: {scene.host}\r\n\r\n".encode())  # the room's TV
        events = read_events(tv)
        assert next(events)[0] == "status" and next(events)[0] == "scoreboard"
        tv.close()
        grown = scene.web.memory_peak() - before
        assert grown < 20 * MB, f"flickboard web grew by {grown / MB:.0f} MB"
    finally:
        for s in held:
            s.close()
    refused_once(scene.web, "too many pages here")
    assert scene.get(f"/tv/{BOARD}")[1]["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in scene.get(f"/tv/{BOARD}")[1]["content-security-policy"]


# ---------------------------------------------------------------- many addresses buy no more guesses


def test_wrong_keys_from_many_addresses_share_one_budget(scene: Scene) -> None:
    """200 addresses, 5 wrong keys each (each address's own allowance): 1,000 guesses asked for. The server checks at
    most its budget for every address together (60 at once, then one a second); the rest are refused unchecked. A
    phone that scored here before is still heard; nothing reaches the journal."""
    assert scene.web is not None
    status, _, doc = scene.entry("shot zone", source="127.0.0.2")  # a phone of the club, before the spray
    assert status == 200 and doc["ok"] is True, doc
    checked = spared = 0
    started = time.monotonic()
    for i in range(200):
        for _ in range(5):
            status, _, doc = scene.entry(
                "hit", X_Flickboard_Key="AAAA-BBBB", source=f"127.0.{1 + i // 200}.{10 + i % 200}"
            )
            if status == 403:
                checked += 1
            else:
                assert status == 429 and doc["refused"] == "wrong keys from many devices", doc
                spared += 1
    took = time.monotonic() - started
    assert checked <= 60 + took + 2, f"{checked} guesses checked in {took:.1f} s"
    assert checked + spared == 1000
    status, _, doc = scene.entry("shot zone", source="127.0.0.2")  # the club's phone: heard throughout (by the bridge)
    assert status == 200 and doc["board"] == BOARD and "refused" not in doc, doc
    assert [r["in"] for r in scene.records()][:1] == ["shot zone"]
    assert "hit" not in [r["in"] for r in scene.records()]
    refused_once(scene.web, "wrong keys from many devices")
