"""The documented secured set-up runs every documented program: Mosquitto from docs/mosquitto/ as shipped (passwords
generated here), and, each as its own process with its own user, its password in a file and the club's CA:
`flickboard bridge` (three tables scored by hand), `flickboard web --tournament` (the pages and the in-process hall
of one tournament, on tables 1 and 2), `flickboard integrations --homeassistant`, `flickboard tournament run` (the
hall of a second tournament, on table 3) and `flickboard enter`. A round of each tournament is played through it:
the halls open the matches on their tables, phones (with a scorer's key for their own table) and scorers' terminals
enter every shot, and the boards' results are recorded.

Before, `web --tournament` logged in twice under its one user: with `use_username_as_clientid` each connection pushed
the other off, phones' entries were refused and no result was recorded; and the ACL had no user for the hall.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from secure_broker import ROOT, SecureBroker
from web_rig import WebProcess

from flickboard.sim.broker import find_mosquitto, free_port
from flickboard.sim.random_game import random_match
from flickboard.tournament import Director, read
from flickboard.tournament.hall import players_of

USERS = ("flickboard-bridge", "web", "hall", "integrations", "scorer")
TABLES = ("table-1", "table-2", "table-3")


class Program:
    """One documented program as its own process, its output kept."""

    def __init__(self, name: str, args: list[str], cwd: Path) -> None:
        self.name = name
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for k in ("FLICKBOARD_WEB_KEY", "FLICKBOARD_ORGANISER_KEY", "FLICKBOARD_MQTT_PASSWORD", "FLICKBOARD_CONFIG"):
            env.pop(k, None)
        self.proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "flickboard"), *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(5)


class Scorer:
    """A scorer's terminal on the broker as `scorer` (what `flickboard enter` sends): an entry with an id, and the
    bridge's answer awaited."""

    def __init__(self, broker: SecureBroker) -> None:
        self.answers: dict[str, dict[str, Any]] = {}
        self.got = threading.Condition()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="scorer")
        c.username_pw_set("scorer", broker.passwords["scorer"])
        c.tls_set(ca_certs=str(broker.ca))
        c.on_message = self._message
        c.connect("localhost", broker.tls_port)
        c.subscribe("flickboard/+/result", qos=1)
        c.loop_start()
        self.client = c

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with contextlib.suppress(ValueError):
            doc = json.loads(msg.payload)
            with self.got:
                self.answers[str(doc.get("id"))] = doc
                self.got.notify_all()

    def enter(self, board: str, line: str) -> dict[str, Any]:
        rid = f"scorer-{uuid.uuid4().hex[:12]}"
        self.client.publish(f"flickboard/{board}/input", json.dumps({"id": rid, "line": line}), qos=1)
        with self.got:
            assert self.got.wait_for(lambda: rid in self.answers, 15), f"no answer to {line!r} on {board}"
            return self.answers[rid]

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture(scope="module")
def secure() -> Iterator[SecureBroker]:
    exe = find_mosquitto()
    assert exe is not None, "Mosquitto is not installed (make test installs it)"
    b = SecureBroker(exe, USERS)
    try:
        yield b
    finally:
        b.close()


def until(pred: Any, what: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def one_round(path: Path, name: str, entrants: list[str], boards: tuple[str, ...]) -> list[str]:
    """A Swiss tournament of one-game matches, its first round paired and put on `boards`: the matches."""
    with Director.create(str(path), name) as d:
        for i, n in enumerate(entrants):
            d.add_entrant(n, seed=i + 1)
        d.start_stage("swiss", "swiss", options={"rounds": 1}, rules="tournament-2019", match="games:1")
        d.pair_round("swiss")
        matches = list(d.event.stages["swiss"].rounds[-1])
        for m, b in zip(matches, boards, strict=True):
            d.assign(m, b)
    return matches


def login(broker: SecureBroker, user: str, folder: Path) -> list[str]:
    """The broker options of a program logged in as `user`: TLS, the club's CA, the password in a file."""
    pw = folder / f"{user}.pw"
    pw.write_text(broker.passwords[user] + "\n")
    pw.chmod(0o600)
    url = f"mqtts://{user}@localhost:{broker.tls_port}"
    return ["--mqtt", url, "--ca-file", str(broker.ca), "--password-file", str(pw)]


def phone_entry(web: WebProcess, board: str, key: str, line: str) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"line": line}).encode()
    req = urllib.request.Request(f"{web.url}/api/{board}/input", data=body, method="POST")
    for k, v in {"Content-Type": "application/json", "Origin": web.url, "X-Flickboard-Key": key}.items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_every_documented_program_runs_on_the_documented_broker_and_a_round_is_played(
    secure: SecureBroker, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    open_matches = one_round(site / "open.jsonl", "Club Open", ["Ana", "Ben", "Cy", "Dee"], TABLES[:2])
    cup_matches = one_round(site / "cup.jsonl", "Club Cup", ["Eve", "Flo"], TABLES[2:])
    keys = site / "scorers.keys"
    for table in TABLES[:2]:
        issued = Program("keys", ["web", "--scorer-keys", str(keys), "--issue-key", table], site)
        issued.proc.wait(60)
        issued.stop()
        assert issued.proc.returncode == 0, issued.lines
    phone_keys = {b: k for k, b in (line.split() for line in keys.read_text().splitlines())}
    programs = [
        Program(
            "bridge",
            ["bridge", *login(secure, "flickboard-bridge", site), "--boards", ",".join(TABLES), "--journals", "j"],
            site,
        ),
        Program("integrations", ["integrations", *login(secure, "integrations", site), "--homeassistant"], site),
        Program("hall", ["tournament", "run", "cup.jsonl", *login(secure, "hall", site), "--boards", "table-3"], site),
    ]
    web: WebProcess | None = None
    scorer: Scorer | None = None
    try:
        web = WebProcess(  # (its own helper: it reads the keys from the terminal)
            secure,
            *login(secure, "web", site)[2:],
            "--tournament",
            str(site / "open.jsonl"),
            "--board",
            "table-1",
            "--board",
            "table-2",
            "--scorer-keys",
            str(keys),
            mqtt=f"mqtts://web@localhost:{secure.tls_port}",
        )
        # Each hall opens its matches on its tables: the bridge's scoreboards show the matches' players.
        plays: dict[str, tuple[str, list[str]]] = {}
        for path, matches in ((site / "open.jsonl", open_matches), (site / "cup.jsonl", cup_matches)):
            ev = read(str(path))
            for mid in matches:
                m = ev.matches[mid]
                assert m.board is not None
                plays[m.board] = (mid, players_of(ev, m))
        for board, (_mid, players) in plays.items():
            until(
                lambda b=board, p=players: web_scoreboard(web, b, p) if b != "table-3" else True,
                f"the web's hall to open its match on {board}",
                60,
            )
        until(lambda: any("opened:" in ln for ln in programs[2].lines), "tournament run to open its match")
        # Play every match: the first shots from the table's phone (its own key), table-3's first from
        # `flickboard enter`, the rest from a scorer's terminal (logged in as `scorer` once `enter` is done: one
        # program per user at a time, as docs/security.md says).
        first = random_match(5, "tournament-2019", plays["table-3"][1], match="games:1").splitlines()
        line = next(ln for ln in first if ln and not ln.startswith("["))
        entered = Program("enter", ["enter", *login(secure, "scorer", site), "--board", "table-3", line], site)
        entered.proc.wait(60)
        entered.stop()
        assert entered.proc.returncode == 0 and entered.lines == [f"[1] {line}"], entered.lines
        scorer = Scorer(secure)
        refused_phone = 0
        for n, (board, (_mid, players)) in enumerate(sorted(plays.items())):
            text = random_match(n + 3, "tournament-2019", players, match="games:1")
            lines = [ln for ln in text.splitlines() if ln and not ln.startswith("[")]
            for i, line in enumerate(lines):
                if board != "table-3" and i < 12:
                    status, doc = phone_entry(web, board, phone_keys[board], line)
                    refused_phone += status != 200 or doc.get("ok") is not True
                    assert status == 200 and doc["ok"] is True, (board, line, doc)
                elif board == "table-3" and i == 0:
                    continue  # (entered above)
                else:
                    doc = scorer.enter(board, line)
                    assert doc["ok"] is True, (board, line, doc)
        assert refused_phone == 0
        # A phone's key for table-1 does not score table-2.
        status, doc = phone_entry(web, "table-2", phone_keys["table-1"], "undo")
        assert status == 403 and doc["refused"] == "key for other boards", doc
        # Every result from its board, in each tournament.
        for path, matches in ((site / "open.jsonl", open_matches), (site / "cup.jsonl", cup_matches)):
            until(
                lambda p=path, ms=matches: all(read(str(p)).matches[m].decided for m in ms),
                f"the boards' results in {path.name}",
                60,
            )
            ev = read(str(path))
            for mid in matches:
                assert ev.matches[mid].outcome is not None and ev.matches[mid].outcome.source == "board"
    except AssertionError:
        for p in programs:
            print(f"--- {p.name}", *p.lines[-15:], sep="\n")
        if web is not None:
            print("--- web", *web.out[-5:], *web.errors[-15:], sep="\n")
        raise
    finally:
        if scorer is not None:
            scorer.close()
        if web is not None:
            web.stop()
        for p in programs:
            p.stop()
    # One connection per program, each under its own user: nobody was pushed off by another login.
    log = secure.log.read_text()
    assert "already connected, closing old connection" not in log, log[-3000:]
    for user in ("flickboard-bridge", "web", "hall", "integrations"):
        assert len(re.findall(rf"New client connected from \S+ as {user} ", log)) == 1, (user, log[-3000:])
    assert web is not None and "Traceback" not in "\n".join(web.errors)
    for p in programs:
        assert "Traceback" not in "\n".join(p.lines), (p.name, p.lines[-20:])


def web_scoreboard(web: WebProcess | None, board: str, players: list[str]) -> bool:
    assert web is not None
    try:
        with urllib.request.urlopen(f"{web.url}/api/{board}/scoreboard", timeout=5) as r:
            doc = json.loads(r.read())
    except (urllib.error.URLError, OSError, ValueError):
        return False
    return sorted(doc.get("score", {}).get("players") or ()) == sorted(players)


def test_a_password_inside_mqtt_is_said_in_one_line_and_a_password_file_is_not(tmp_path: Path) -> None:
    port = free_port()  # nothing listens: the command stops after its warning, on the connection refused
    words = ["enter", "--board", "t1", "--timeout", "1", "hit"]
    inside = Program("enter", ["enter", "--mqtt", f"mqtt://scorer:s3cret-pw@127.0.0.1:{port}", *words[1:]], tmp_path)
    inside.proc.wait(60)
    inside.stop()
    warned = [ln for ln in inside.lines if "password is inside --mqtt" in ln]
    assert len(warned) == 1 and "--password-file" in warned[0] and "s3cret-pw" not in "\n".join(inside.lines)
    pw = tmp_path / "scorer.pw"
    pw.write_text("s3cret-pw\n")
    filed = Program(
        "enter",
        ["enter", "--mqtt", f"mqtt://scorer@127.0.0.1:{port}", "--password-file", str(pw), *words[1:]],
        tmp_path,
    )
    filed.proc.wait(60)
    filed.stop()
    assert not any("password is inside" in ln for ln in filed.lines), filed.lines
