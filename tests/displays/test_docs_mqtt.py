"""docs/mqtt.md documents everything the bridge publishes: a real Bridge runs in-process (board lines from the
firmware's own encoder, manual entries as JSON requests), and every key of every scoreboard document, moment,
result and health document it publishes must appear on the page as `key`. A field added without documenting it
fails here."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.board.protocol import ERROR_CODES
from flickboard.config import KEYS
from flickboard.mqtt import BRIDGE_HEALTH

ROOT = Path(__file__).resolve().parents[2]
from fb import proto  # noqa: E402

DOC = (ROOT / "docs" / "mqtt.md").read_text(encoding="utf-8")
DOCUMENTED = set(re.findall(r"`([^`\n]+)`", DOC))
BOARD = "t1"


NAMED_BY_DATA = {"in_hand_by_player"}  # objects keyed by player names, not by documented keys


def keys(obj: Any) -> set[str]:
    """Every key of every object inside `obj`, at any depth."""
    if isinstance(obj, dict):
        out = set(obj)
        for k, v in obj.items():
            if k not in NAMED_BY_DATA:
                out |= keys(v)
        return out
    if isinstance(obj, list):
        return set().union(*(keys(v) for v in obj)) if obj else set()
    return set()


def undocumented(names: set[str]) -> list[str]:
    return sorted(n for n in names if n not in DOCUMENTED)


class Run:
    """The capturing publish callable, and what the run saw."""

    def __init__(self) -> None:
        self.published: list[tuple[str, Any, int, bool]] = []
        self.results: list[dict[str, Any]] = []
        self.seen: dict[str, Any] = {}  # scoreboards at chosen moments

    def __call__(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        self.published.append((topic, json.loads(payload), qos, retain))

    def on(self, suffix: str) -> list[Any]:
        return [m for t, m, _, _ in self.published if t.endswith(suffix)]


def _drive(tmp: Path) -> Run:
    run = Run()
    bridge = Bridge(tmp / "journals", GameSetup("tournament-2019", ("Ana", "Ben"), "games:1"), None, run)
    enc = proto.Encoder(BOARD, 7, 0)

    def send(line: str) -> None:  # the bridge's acks and pings back to the board: not needed here
        pass

    def feed(line: str) -> None:
        bridge.serial_line("/dev/ttyX", line, send)

    def ev(kind: str, sensor: str, **fields: int) -> None:
        feed(enc.event(kind, sensor, 1000 * enc.seq, fields))

    def entry(line: str) -> dict[str, Any]:
        res = bridge.mqtt_input(BOARD, json.dumps({"id": f"r{len(run.results)}", "line": line}).encode())
        run.results.append(res)
        return res

    def board() -> dict[str, Any]:
        doc: dict[str, Any] = run.on(f"{BOARD}/scoreboard")[-1]
        return doc

    bridge.link_state("serial", "/dev/ttyX", True, "opened")
    feed(enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
    feed(enc.heartbeat(500, 5000, 81234, 0, 0, 0, -58))  # board_link.heartbeat
    ev("shot_start", "baseline", q=1, seg=1)  # Ana's free shot
    ev("pass", "hole", dur_us=900)  # a provisional twenty
    entry("confirm")
    ev("shot_start", "baseline", q=3, seg=9)  # Ben's shot
    ev("pass", "ditch1", dur_us=900)  # a ditch pass nobody attributed yet
    ev("stuck", "hole", after_ms=2000)  # a puck on edge
    run.seen["checks"] = board()
    ev("shot_start", "baseline", q=1, seg=2)  # waits on the checks
    entry("ditch")
    entry("reviewed")
    ev("shot_start", "baseline", q=3, seg=9)  # Ana's free shot ends with the zone question: waits
    run.seen["waiting"] = board()
    entry("zone")
    ev("count", "ditch2", expected=4, seen=3)  # a review hold: an edge the IRQs missed
    ev("shot_start", "baseline", q=1, seg=2)  # queued behind it
    run.seen["review"] = board()
    entry("reviewed checked the beam")
    entry("hit")
    entry("shot Ben hit")  # refused by the rules: Ana's shot is open
    run.results.append(bridge.mqtt_input(BOARD, b"not json"))  # a bad request
    entry("declare")
    entry("dismiss")  # refused: nothing queued
    entry("penalty Ana")
    entry("forfeit Ana other")  # a forfeited game is lost: Ben wins it, and the games:1 match, at 0-0
    run.seen["forfeit"] = board()
    shootout = {"id": 8, "new": {"players": ["Ana", "Ben"], "match": "shootout"}}  # a tie-break shoot-out match
    run.results.append(bridge.mqtt_input(BOARD, json.dumps(shootout).encode()))
    run.seen["shootout"] = board()
    for _ in range(12):
        entry("shot in")
        entry("shot miss")
        if board()["score"]["over"]:
            break
    run.seen["over"] = board()
    new = {"id": 9, "new": {"players": ["Cy", "Di"], "match": "wins:2"}}
    run.results.append(bridge.mqtt_input(BOARD, json.dumps(new).encode()))
    enc = proto.Encoder(BOARD, 8, 0)  # the board restarts
    feed(enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))
    feed("FB1|garbage|00000000")  # a garbled line
    bridge.link_state("serial", "/dev/ttyX", False, "read failed: unplugged")
    bridge.tick()
    _other_games(bridge, run)
    return run


def _other_games(bridge: Bridge, run: Run) -> None:
    """A Québec partie on board t2 (with a pocket beam) and a Flicochet game on t3: their documents too."""
    for board, new, lines in [
        (
            "t2",
            {"rules": "officiel", "players": ["Ann", "Bob"], "target": "5"},
            [
                *["shot red green", "color red", "shot red c5", "shot green", "foul", "shot c10", "shot none"],
                *["shot red@1", "shot " + " ".join(["red"] * 9), "shot none"],
            ],
        ),
        (
            "t3",
            {"rules": "flicochet+double-jack+school", "players": ["Ann", "Bob"]},
            [
                *["flick"] * 3,
                "off red",
                *["flick"] * 9,
                "order 1 R W",
                "dist 2 W 3 R 9 R 10 W 11 R 12 W 13 R 14 W 15 R 16 W 17 W 18",
                "flick",
                "jack off 1",
            ],
        ),
    ]:
        run.results.append(bridge.mqtt_input(board, json.dumps({"id": board, "new": new}).encode()))
        enc = proto.Encoder(board, 1, 0)
        for i, line in enumerate(lines):
            if line == "shot red@1":
                bridge.serial_line("/dev/ttyQ", enc.event("pass", "pocket1", 1000, {"dur_us": 4000}), lambda _: None)
            res = bridge.mqtt_input(board, json.dumps({"id": f"{board}-{i}", "line": line}).encode())
            assert res["ok"], (board, line, res)
        run.seen[board] = run.on(f"{board}/scoreboard")[-1]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _drive(tmp_path_factory.mktemp("docs_mqtt"))


def test_the_run_went_through_holds_waits_and_refusals(run: Run) -> None:
    assert run.seen["checks"]["checks"] and run.seen["checks"]["open_shot"] is not None
    waiting = run.seen["waiting"]
    assert waiting["waiting"] and "answer first" in waiting["waiting"]["text"] and waiting["queued"] == 1
    assert waiting["score"]["questions"] and waiting["score"]["current"] is not None
    review = run.seen["review"]
    assert review["needs_review"] and review["review"] and review["waiting"] is None and review["queued"] == 1
    forfeit = run.seen["forfeit"]["score"]
    assert forfeit["over"] and forfeit["winner"] == "Ben" and forfeit["games"][0]["forfeit"]["side"] == "Ana"
    assert not forfeit["games"][0]["tied"] and forfeit["match_shootout"] is None
    assert run.seen["shootout"]["score"]["shootout"]["purpose"] == "match"
    assert run.seen["over"]["score"]["over"] and run.seen["over"]["score"]["match_shootout"]
    assert run.seen["t2"]["score"]["game"] == "pichenottes-quebec" and run.seen["t2"]["score"]["over"]
    assert run.seen["t3"]["score"]["game"] == "flicochet" and len(run.seen["t3"]["score"]["rounds"]) == 1
    answers = {(r["ok"], r["entry"] is None) for r in run.results}
    assert answers == {(True, False), (False, False), (False, True)}  # in effect, refused by the rules, invalid


def test_every_scoreboard_key_is_documented(run: Run) -> None:
    docs = run.on("/scoreboard")
    assert docs and all(d["format"] == "flickboard-scoreboard" for d in docs)
    found = set().union(*(keys(d) for d in docs))
    for part in ("board_link", "open_shot", "waiting", "review", "notes", "score", "current", "games", "questions"):
        assert part in found
    assert {"boot", "in_sync", "provisional_twenties", "decided_by_shootout", "purpose", "heartbeat", "rssi"} <= found
    assert not undocumented(found), "add these scoreboard keys to docs/mqtt.md"


def test_every_moment_type_and_field_is_documented(run: Run) -> None:
    moments = run.on("/events")
    assert moments and all(m["format"] == "flickboard-moment" for m in moments)
    types = {m["type"] for m in moments}
    assert {"twenty", "ditch-pass", "edge", "review", "question", "shootout-shot", "match-over"} <= types
    assert not undocumented(types), "add these moment types to docs/mqtt.md"
    assert not undocumented(keys(moments)), "add these moment fields to docs/mqtt.md"


def _fx_dicts(path: Path) -> list[ast.Dict]:
    """The dict literals appended to an effects list (`fx.append({...})`) in a source file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "fx"
            and node.args
            and isinstance(node.args[0], ast.Dict)
        ):
            found.append(node.args[0])
    return found


def test_every_moment_the_code_can_make_is_documented() -> None:
    """Also the moments the run above does not reach: read them from the source."""
    types: set[str] = set()
    fields: set[str] = set()
    engines = [ROOT / "rules" / game / "engine.py" for game in ("pichenotte", "quebec", "flicochet")]
    for path in (*engines, ROOT / "host" / "core" / "session.py"):
        for d in _fx_dicts(path):
            for k, v in zip(d.keys, d.values, strict=True):
                assert isinstance(k, ast.Constant) and isinstance(k.value, str)
                fields.add("player" if k.value == "seat" else k.value)  # host/core/scoreboard.py moments()
                if k.value == "type" and isinstance(v, ast.Constant):
                    types.add(v.value)
    for name in ("evidence.py", "pockets.py"):
        evidence = (ROOT / "host" / "core" / name).read_text(encoding="utf-8")
        types |= set(re.findall(r'moment="([a-z-]+)"', evidence))
    assert {"shot", "twenty", "game-over", "review", "ditch-pass", "edge"} <= types
    assert not undocumented(types), "add these moment types to docs/mqtt.md"
    assert not undocumented(fields), "add these moment fields to docs/mqtt.md"


def test_every_result_key_is_documented(run: Run) -> None:
    on_topic = run.on(f"{BOARD}/result")
    assert on_topic == [r for r in run.results if r["board"] == BOARD]
    found = keys(run.results)
    assert {"id", "ok", "entry", "message", "board"} <= found
    assert not undocumented(found), "add these result keys to docs/mqtt.md"


def test_every_health_key_is_documented(run: Run) -> None:
    health = run.on(BRIDGE_HEALTH)[-1]
    assert health["format"] == "flickboard-bridge-health"
    found = set(health)
    found |= set(health["protocol"]) | set(health["protocol"]["counters"]) | set(health["inputs"])
    for name in ("boards", "links"):  # keyed by board id / link name, then fixed keys
        for v in health[name].values():
            found |= set(v)
    for v in health["protocol"]["boards"].values():
        found |= set(v)
    found |= keys(health["recent_errors"])
    assert health["recent_errors"] and health["links"] and health["boards"] and health["protocol"]["boards"]
    assert not undocumented(found), "add these health keys to docs/mqtt.md"
    codes = {e["code"] for e in health["recent_errors"]}
    assert {"crc", "input"} <= codes
    assert not undocumented(set(ERROR_CODES) | codes), "add these error codes to docs/mqtt.md"


def test_every_setting_is_documented() -> None:
    assert not undocumented(set(KEYS) | {f"FLICKBOARD_{k.upper()}" for k in KEYS})


def test_the_topic_table_gives_the_real_qos_and_retain(run: Run) -> None:
    rows = {}
    for line in DOC.splitlines():
        if line.startswith("| `flickboard/"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells
    for topic, _, qos, retain in run.published:
        generic = re.sub(r"^flickboard/(?!bridge/)[^/]+/", "flickboard/<board>/", topic)
        generic = re.sub(r"^flickboard/bridge/[^/]+/", "flickboard/bridge/<bridge>/", generic)
        assert generic in rows, f"{generic} is not in the topic table of docs/mqtt.md"
        cells = rows[generic]
        assert cells[2].startswith(str(qos)), (generic, qos, cells[2])
        assert ("yes" in cells[3]) == retain, (generic, retain, cells[3])
