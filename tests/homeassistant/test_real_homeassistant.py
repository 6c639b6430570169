"""`make ha`: the Home Assistant integration against a real Home Assistant Core (the pinned release, installed by
tests/homeassistant/install.sh) with its MQTT integration, a Mosquitto started here, the real bridge and
`flickboard integrations` as commands, and a simulated Wi-Fi board (the real firmware under MicroPython) playing a
whole match with a scorer's entries. Home Assistant is read through its REST and websocket APIs, as a user's dashboard
reads it, and through its own pages in a real Chromium (tests/support/homeassistant_frontend.py), and its log must hold
no warning or error about Flickboard. What is checked, step by step, is what docs/integrations.md says a Home Assistant
user sees (its "Checked with a real Home Assistant" section). In the middle of the match the device page, a dashboard
and the automation editor are photographed into FLICKBOARD_HA_SCREENSHOTS (build/ha/screenshots; `make ha
SCREENSHOTS=docs/img` refreshes the docs' pictures)."""

from __future__ import annotations

import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from homeassistant_core import HomeAssistantCore
from homeassistant_frontend import Frontend
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.displays.integrations.homeassistant import LEGACY, MOMENT_EVENTS, PRESS_EVENTS, TRIGGERS
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.board_scenario import from_transcript
from flickboard.sim.broker import Broker, mosquitto
from flickboard.sim.driver import Driver, FileHolds
from flickboard.sim.random_game import random_match
from flickboard.sim.simulator import SimBoard, spawn_board

ROOT = Path(__file__).resolve().parents[2]
HA_ROOT = Path(os.environ.get("FLICKBOARD_HA_ROOT", ROOT / "build" / "ha" / "root")).resolve()
BOARD, OLD = "table-1", "old-1"  # a Wi-Fi board; a board announced by the per-entity configs of earlier versions
SEED = 7
MATCH = "games:2"  # two games: in the second one, the points of the first are on the dashboard's graph
PREFIX = "homeassistant"
KEYS = [  # docs/integrations.md, "What appears": the components of a board's device, buttons on
    *(f"{k}_{n}" for n in (1, 2) for k in ("points", "games_won", "last_game", "twenties")),
    *("game", "state", "moment", "press", "confirm", "undo", "reviewed"),
    *("board", "events_missing", "only_repeats", "events_behind", "board_messages", "boot", "link", "queued"),
    *("refused", "signal", "uptime", "outbox", "drops", "reconnects"),
]
WORDS = ("flickboard", "table-1", "table_1", "old-1", "old_1")  # a log record naming one of these is about us
MQTT_LOGGERS = ("homeassistant.components.mqtt",)
DOCS = ROOT / "docs" / "integrations.md"
SHOTS = ROOT / os.environ.get("FLICKBOARD_HA_SCREENSHOTS", "build/ha/screenshots")  # an absolute path stays as it is
AUTOMATION = "flickboard_moments"
LOGGED = "Flickboard check"  # the name on the logbook lines the automation writes
SIZE = (1280, 960)


def wait(what: str, check: Callable[[], Any], timeout: float = 60, every: float = 0.5) -> Any:
    """Poll `check` until it returns something true; fail with `what` and the last value."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout:g} s (last: {str(last)[:1500]})")


class Spy:
    """Every message on the topics, with when it came (a plain paho client)."""

    def __init__(self, broker: Broker, topics: list[str]) -> None:
        self.msgs: list[tuple[float, str, bytes, bool]] = []
        self.lock = threading.Lock()
        ready = threading.Event()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"spy-{uuid.uuid4().hex[:6]}")

        def on_message(_c: Any, _u: Any, m: mqtt.MQTTMessage) -> None:
            with self.lock:
                self.msgs.append((time.monotonic(), m.topic, bytes(m.payload), bool(m.retain)))

        c.on_message = on_message
        c.on_connect = lambda cl, *_: cl.subscribe([(t, 1) for t in topics])
        c.on_subscribe = lambda *_: ready.set()
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        assert ready.wait(10)
        self.client = c

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def on(self, topic: str, since: float = 0) -> list[bytes]:
        with self.lock:
            return [p for t0, t, p, _ in self.msgs if t == topic and t0 >= since]

    def last(self, topic: str) -> dict[str, Any] | None:
        got = [p for p in self.on(topic) if p]
        return json.loads(got[-1]) if got else None

    def enter(self, board: str, line: str, **request: Any) -> dict[str, Any]:
        """A manual entry (or another request) through the bridge's input topic, as a phone sends it; the answer."""
        rid = uuid.uuid4().hex[:12]
        since = time.monotonic()
        body = {"id": rid, **(request or {"line": line})}
        self.publish(f"flickboard/{board}/input", json.dumps(body))

        def answer() -> dict[str, Any] | None:
            for p in self.on(f"flickboard/{board}/result", since):
                doc = json.loads(p)
                if doc.get("id") == rid:
                    return dict(doc)
            return None

        return dict(wait(f"the bridge's answer to {line!r}", answer, 30, 0.05))

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Command:
    """A flickboard command as a process of its own (its output in a file), stopped cleanly or killed."""

    def __init__(self, name: str, argv: list[str], logs: Path) -> None:
        self.name = name
        self.log = logs / f"{name}.log"
        self.argv = argv
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        out = open(self.log, "ab")  # noqa: SIM115  (closed below; the child keeps its copy)
        exe = str(Path(sys.executable).parent / "flickboard")
        self.proc = subprocess.Popen([exe, *self.argv], stdout=out, stderr=out)
        out.close()

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)
        self.proc = None

    def text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    with mosquitto() as b:
        yield b


@pytest.fixture(scope="module")
def ha(broker: Broker) -> Iterator[HomeAssistantCore]:
    core = HomeAssistantCore(HA_ROOT, "check", port=18123 + os.getpid() % 1000)
    core.prepare()
    core.start()
    try:
        core.wait_up()
        core.onboard()
        core.add_mqtt(broker.port)
        core.wait_up()
        yield core
    finally:
        core.stop()


def registry(ha: HomeAssistantCore, board: str) -> dict[str, dict[str, Any]]:
    """The entity registry's entries of a board's device, by component key."""
    prefix = f"flickboard_{board}_"
    return {
        e["unique_id"].removeprefix(prefix): e
        for e in ha.ws("config/entity_registry/list")
        if e["platform"] == "mqtt" and str(e["unique_id"]).startswith(prefix)
    }


def device(ha: HomeAssistantCore, board: str) -> dict[str, Any] | None:
    for d in ha.ws("config/device_registry/list"):
        if ["mqtt", f"flickboard_{board}"] in d["identifiers"]:
            return dict(d)
    return None


def legacy_configs(board: str) -> dict[str, dict[str, Any]]:
    """What the version before device-based discovery published for a board: one config per entity, each with the
    device, on `<prefix>/<platform>/flickboard_<board>/<key>/config`."""
    dev = {"ids": [f"flickboard_{board}"], "name": f"Flickboard {board}", "mf": "Flickboard"}
    scoreboard, events = f"flickboard/{board}/scoreboard", f"flickboard/{board}/events"
    out: dict[str, dict[str, Any]] = {}
    for platform, key in LEGACY:
        topic = f"{PREFIX}/{platform}/flickboard_{board}/{key}/config"
        if platform == "device_automation":
            moment, kind, subtype = TRIGGERS[key]
            out[topic] = {"automation_type": "trigger", "topic": events, "type": kind, "subtype": subtype,
                          "payload": moment, "value_template": "{{ value_json.type }}", "dev": dev}  # fmt: skip
            continue
        cfg: dict[str, Any] = {"name": key, "unique_id": f"flickboard_{board}_{key}", "dev": dev,
                               "availability_topic": "flickboard/bridge/status"}  # fmt: skip
        if platform == "event":
            cfg.update(state_topic=events, event_types=["twenty"], value_template="{}")
        elif platform == "binary_sensor":
            cfg.update(state_topic=scoreboard, value_template="OFF")
        else:
            cfg.update(state_topic=scoreboard, value_template="{{ value_json.queued }}")
        out[topic] = cfg
    return out


def documented_triggers() -> dict[str, str]:
    """docs/integrations.md's table of device triggers: each label the automation editor shows → its moment."""
    text = DOCS.read_text()
    table = text[text.index("| trigger, as the automation editor shows it |") :].split("\n\n")[0]
    rows = dict(re.findall(r'^\| `(".+?" [a-z]+)` \| `([a-z-]+)`', table, re.M))
    assert len(rows) == len(TRIGGERS), f"docs/integrations.md's device trigger table: {rows}"
    return rows


def moments_automation(ha: HomeAssistantCore, device_id: str) -> list[str]:
    """An automation with every device trigger of the board, saved as the automation editor saves one; each run writes a
    logbook line naming its trigger. Its triggers' keys, in the editor's order."""
    by_kind = {(kind, sub): key for key, (_, kind, sub) in TRIGGERS.items()}
    listed = [t for t in ha.ws("device_automation/trigger/list", device_id=device_id) if t.get("domain") == "mqtt"]
    keys = [by_kind[(t["type"], t["subtype"])] for t in listed]
    config = {
        "alias": "Flickboard moments",
        "description": "",
        "mode": "parallel",
        "max": 1000,
        "triggers": [
            {"trigger": "device", "domain": "mqtt", "device_id": device_id, "type": t["type"], "subtype": t["subtype"]}
            | {"id": key}
            for t, key in zip(listed, keys, strict=True)
        ],
        "conditions": [],
        "actions": [{"action": "logbook.log", "data": {"name": LOGGED, "message": "{{ trigger.id }}"}}],
    }
    ha.rest("POST", f"/api/config/automation/config/{AUTOMATION}", config)
    return keys


def save_dashboard(ha: HomeAssistantCore, entries: dict[str, dict[str, Any]], minutes: float) -> str:
    """A dashboard of the board, made through the websocket API as the dashboard editor makes one: State as a tile with
    whose shot it is, the score as an entities card, the points and the twenties as history graphs of the last
    `minutes`. Its path."""
    ids = {k: e["entity_id"] for k, e in entries.items()}
    path = "flickboard-table-1"
    if not any(d["url_path"] == path for d in ha.ws("lovelace/dashboards/list")):
        ha.ws("lovelace/dashboards/create", url_path=path, title="Flickboard", icon="mdi:scoreboard")
    hours = round(minutes / 60, 4)
    cards = [
        {"type": "tile", "entity": ids["state"], "state_content": ["state", "shooter"]},
        {"type": "entities", "title": "Score", "entities": [
            ids[k] for k in ("points_1", "points_2", "games_won_1", "games_won_2", "last_game_1", "last_game_2",
                             "twenties_1", "twenties_2", "game", "moment", "board")]},
        {"type": "history-graph", "title": "Points", "hours_to_show": hours,
         "entities": [ids["points_1"], ids["points_2"]]},
        {"type": "history-graph", "title": "Twenties in the game", "hours_to_show": hours,
         "entities": [ids["twenties_1"], ids["twenties_2"]]},
    ]  # fmt: skip
    view = {"title": BOARD, "path": BOARD, "cards": cards}
    ha.ws("lovelace/config/save", url_path=path, config={"title": "Flickboard", "views": [view]})
    return f"/{path}/{BOARD}"


def look(
    ha: HomeAssistantCore,
    dev: dict[str, Any],
    entries: dict[str, dict[str, Any]],
    keys: list[str],
    since: float,
    scoreboard: dict[str, Any],
) -> dict[str, Any]:
    """Home Assistant's own pages in the middle of the match, in a real Chromium logged in as its user: the device page
    shows the board's entities with the scoreboard's numbers, the dashboard its tile, score and graphs, the automation
    editor the device triggers under the labels docs/integrations.md gives. Each is photographed."""
    states = ha.states()

    def shown(key: str) -> str:
        return str(states[entries[key]["entity_id"]]["state"])

    score = scoreboard["score"]
    numbers = {"game": str(score["current"]["game"])}
    for i in (0, 1):  # games won as a person writes them: 1, not 1.0; 1.5 after a tie
        numbers |= {f"points_{i + 1}": str(score["totals"][i]), f"games_won_{i + 1}": f"{score['games_won'][i]:g}"}
        numbers |= {f"last_game_{i + 1}": str(score["games"][-1]["points"][i])}
        numbers |= {f"twenties_{i + 1}": str(score["current"]["twenties"][i])}
    seen: dict[str, Any] = {}
    with Frontend(ha, *SIZE) as ui:
        ui.open(f"/config/devices/device/{dev['id']}", entries["points_1"]["original_name"])
        rows = ui.entity_rows()
        for key, number in [*numbers.items(), ("state", shown("state"))]:
            name = entries[key]["original_name"]
            assert rows.get(name) == number, f"the device page shows {name} {rows.get(name)!r}, not {number!r}"
        missing = {e["original_name"] for e in entries.values()} - set(rows)
        assert not missing, f"not on the device page: {missing} (it shows {rows})"
        seen["device_page"] = rows
        ui.screenshot(SHOTS / "ha-device.png")

        # the graphs span the match so far (played faster than real time: a minute or so), and a little before it
        path = save_dashboard(ha, entries, max(1.0, (time.monotonic() - since) / 60 * 1.2))
        ui.open(path, "Score")
        shooter = states[entries["state"]["entity_id"]]["attributes"].get("shooter")
        tile = ui.card_text("hui-tile-card")
        assert shown("state") in tile and (shooter is None or shooter in tile), tile
        graph = ui.wait_card("hui-history-graph-card", entries["points_1"]["original_name"])
        seen["dashboard"] = {"tile": tile, "points_graph": graph}
        ui.screenshot(SHOTS / "ha-dashboard.png")

        ui.open(f"/config/automation/edit/{AUTOMATION}", "Flickboard moments")
        labels = ui.trigger_labels()
        assert len(labels) == len(keys), labels
        documented = documented_triggers()
        editor = {label: TRIGGERS[key][0] for label, key in zip(labels, keys, strict=True)}
        assert editor == documented, f"the automation editor shows {editor}; docs/integrations.md says {documented}"
        seen["trigger_labels"] = labels
        ui.screenshot(SHOTS / "ha-triggers.png")
    return seen


def test_a_real_home_assistant(ha: HomeAssistantCore, broker: Broker, tmp_path: Path) -> None:
    t_start = time.monotonic()
    report: dict[str, Any] = {"home_assistant": ha.version(), "python": ha.python()}
    spy = Spy(broker, [f"{PREFIX}/#", "flickboard/#"])
    url = broker.url
    bridge = Command(
        "bridge",
        [
            "bridge",
            "--mqtt",
            url,
            "--journals",
            str(tmp_path / "journals"),
            "--players",
            "Ana",
            "Ben",
            "--match",
            MATCH,
            "--keepalive",
            "5",
            "--bridge-id",
            "hall",
        ],
        tmp_path,
    )
    integrations = Command(
        "integrations",
        ["integrations", "--mqtt", url, "--homeassistant", "--ha-commands", "--web", "http://127.0.0.1:8080"],
        tmp_path,
    )
    board: SimBoard | None = None
    control = Path(tempfile.mkdtemp(prefix="flickboard-ha-"))
    try:
        # -- 1. A board of the per-entity era is in Home Assistant already (its configs retained on the broker).
        for topic, cfg in legacy_configs(OLD).items():
            spy.publish(topic, json.dumps(cfg), retain=True)
        wait("the per-entity entities of the earlier version", lambda: len(registry(ha, OLD)) == 14 and 1)
        old_ids = {k: e["id"] for k, e in registry(ha, OLD).items()}

        # -- 2. The bridge, then a Wi-Fi board that is online before the bridge has a journal for it.
        bridge.start()
        wait("the bridge online", lambda: spy.on("flickboard/bridge/hall/status")[-1:] == [b"online"])
        transcript = random_match(SEED, "tournament-2019", ["Ana", "Ben"], match=MATCH, sensor_exact=True)
        scenario = from_transcript(parse_transcript(transcript), board_id=BOARD, holds=True)
        scenario["control"] = str(control)
        # keepalive 0, as the simulated board has it with holds: its clock stands still at a hold (and so do its pings)
        scenario["mqtt"] = {"host": "127.0.0.1", "port": broker.port, "user": None, "password": None, "keepalive": 0}
        board = spawn_board(scenario, realtime=False, pty=False, stdout=subprocess.DEVNULL)
        wait("the board's first scoreboard", lambda: spy.last(f"flickboard/{BOARD}/scoreboard"))
        assert spy.enter(OLD, "", new={"players": ["Cy", "Di"]})["ok"]  # the old board's game, scored by hand

        # -- 3. The integrations: one device config per board, published once, right from the first.
        since = time.monotonic()
        integrations.start()
        want = set(KEYS)
        got = wait("every component of the board in Home Assistant", lambda: set(registry(ha, BOARD)) == want and 1)
        assert got
        entries = registry(ha, BOARD)
        configs = [json.loads(p) for p in spy.on(f"{PREFIX}/device/flickboard_{BOARD}/config", since) if p]
        assert len(configs) == 1, f"{len(configs)} device configs for a board seen once"
        cmps = configs[0]["cmps"]
        for key, e in entries.items():
            assert e["entity_id"] == cmps[key]["default_entity_id"], (key, e["entity_id"])
            assert e["original_name"] == cmps[key]["name"], (key, e["original_name"])
            assert (e["entity_category"] == "diagnostic") == (cmps[key].get("entity_category") == "diagnostic"), key
        assert entries["points_1"]["original_name"] == "Ana points"
        dev = device(ha, BOARD)
        assert dev is not None and dev["name"] == f"Flickboard {BOARD}" and dev["manufacturer"] == "Flickboard"
        assert dev["configuration_url"] == f"http://127.0.0.1:8080/enter/{BOARD}", dev
        # the per-entity entities moved to the device config: the same registry entries (names, history kept)
        moved = wait("the old board's entities on its device config", lambda: registry(ha, OLD))
        assert {k: moved[k]["id"] for k in old_ids} == old_ids
        report["migrated"] = len(old_ids)

        def state(key: str, board: str = BOARD) -> dict[str, Any]:
            return dict(
                ha.states()[entries[key]["entity_id"] if board == BOARD else registry(ha, board)[key]["entity_id"]]
            )

        # -- 4. The board is connected from its first message (its status came before its journal).
        wait("the Board connectivity on", lambda: state("board")["state"] == "on")
        assert state("link")["state"] == "mqtt"

        # -- 5. A refused press is seen in Home Assistant: Undo with nothing to undo yet... is refused by the bridge.
        ha.press(entries["undo"]["entity_id"])
        pressed = wait("the press event", lambda: state("press")["attributes"].get("event_type") and state("press"))
        assert pressed["attributes"]["event_type"] in PRESS_EVENTS
        report["first_press"] = pressed["attributes"]

        # -- 6. A whole match: the board's sensor shots, the scorer's entries through the bridge's input topic; an
        # automation on every device trigger of the board counts what fires. In the second game, with the board held
        # between two shots, Home Assistant's own pages are looked at and photographed.
        keys = moments_automation(ha, dev["id"])
        assert sorted(keys) == sorted(TRIGGERS), keys  # the six device triggers, each once
        wait("the automation on", lambda: ha.states().get(f"automation.{AUTOMATION}", {}).get("state") == "on", 30)
        automation_on = time.monotonic()
        game_start = datetime.datetime.now(datetime.UTC)

        def processed() -> int:
            doc = spy.last(f"flickboard/{BOARD}/scoreboard")
            return int((doc or {}).get("board_link", {}).get("processed") or 0)

        def enter(line: str) -> dict[str, Any]:
            answer = spy.enter(BOARD, line)
            doc = spy.last(f"flickboard/{BOARD}/scoreboard") or {}
            current = doc.get("score", {}).get("current") or {}
            if "pages" not in report and current.get("game") == 2 and current.get("shots_played", 0) >= 10:
                time.sleep(1)  # Home Assistant's states follow the scoreboard
                report["pages"] = look(ha, dev, entries, keys, automation_on, doc)
            return answer

        def shot_played(_hold: str) -> None:
            if "pages" not in report:  # a shot takes a moment at a table: the graphs of the pictures get a shape
                time.sleep(0.5)

        driver = Driver(transcript, FileHolds(control), enter, processed, timeout=120, after_go=shot_played)
        driver.run()
        assert "pages" in report, "the match never reached the middle of its second game"
        final = wait("the final scoreboard", lambda: (d := spy.last(f"flickboard/{BOARD}/scoreboard"))
                     and d["score"]["over"] and d)  # fmt: skip
        time.sleep(2)
        states = ha.states()

        def value(key: str) -> str:
            return str(states[entries[key]["entity_id"]]["state"])

        totals = final["score"]["totals"]
        assert (value("points_1"), value("points_2")) == (str(totals[0]), str(totals[1]))
        won = final["score"]["games_won"]
        assert (value("games_won_1"), value("games_won_2")) == tuple(f"{w:g}" for w in won)
        winner = final["score"]["winner"]
        assert value("state") == f"over: {winner} wins", value("state")
        assert value("twenties_1") == "unknown"  # between games: none in play
        assert states[entries["uptime"]["entity_id"]]["attributes"].get("unit_of_measurement") == "s"
        for key in ("points_1", "twenties_1", "games_won_1", "board_messages"):
            attrs = states[entries[key]["entity_id"]]["attributes"]
            assert "unit_of_measurement" not in attrs and attrs["state_class"] in ("measurement", "total_increasing")
        report["final"] = {k: value(k) for k in ("points_1", "points_2", "games_won_1", "games_won_2", "state")}
        stats = ha.ws("recorder/list_statistic_ids", statistic_type="mean")
        with_stats = {s["statistic_id"] for s in stats}
        assert entries["points_1"]["entity_id"] in with_stats and entries["points_2"]["entity_id"] in with_stats

        # -- 7. Each device trigger fired once per moment of its kind.
        moments = [json.loads(p) for p in spy.on(f"flickboard/{BOARD}/events", automation_on)]
        expected = {k: n for k, (moment, _, _) in TRIGGERS.items() if (n := sum(m["type"] == moment for m in moments))}
        assert expected.keys() >= {"twenty", "ditch", "game_over", "match_over"}, expected

        def runs() -> dict[str, int]:
            lines = [e["message"] for e in ha.rest("GET", f"/api/logbook/{game_start.isoformat()}")
                     if e.get("name") == LOGGED]  # fmt: skip
            return {k: lines.count(k) for k in sorted(set(lines))}

        wait("every device trigger fired once per moment", lambda: runs() == expected and 1, 30)
        report["triggers_fired"] = expected

        # -- 8. The logbook of the match: the news, not every shot.
        start = game_start.isoformat()
        book = ha.rest("GET", f"/api/logbook/{start}")
        ours = [e for e in book if "flickboard_table_1" in str(e.get("entity_id"))]
        per_entity: dict[str, int] = {}
        for e in ours:
            per_entity[e["entity_id"]] = per_entity.get(e["entity_id"], 0) + 1
        report["logbook"] = per_entity
        moments = [json.loads(p) for p in spy.on(f"flickboard/{BOARD}/events")]
        fired = sum(1 for m in moments if m["type"] in MOMENT_EVENTS)
        assert per_entity.get(entries["moment"]["entity_id"], 0) <= fired
        report["moments"] = {"sent": len(moments), "fired": fired}

        # -- 9. A press that applies: Undo, entered by the bridge.
        before = final["entries"]
        ha.press(entries["undo"]["entity_id"])
        wait("the undo entered", lambda: state("press")["attributes"].get("event_type") == "entered")
        after = wait("the scoreboard after the undo", lambda: (d := spy.last(f"flickboard/{BOARD}/scoreboard"))
                     and d["entries"] > before and d)  # fmt: skip
        assert not after["score"]["over"]

        # -- 10. The bridge killed: every entity of its boards unavailable (its last will); back when it comes back.
        assert bridge.proc is not None
        bridge.stop(signal.SIGKILL)
        killed = time.monotonic()

        def all_unavailable() -> bool:
            s = ha.states()
            return all(s[e["entity_id"]]["state"] == "unavailable" for k, e in entries.items() if k != "press")

        wait("every entity unavailable after the bridge was killed", all_unavailable, 60)
        report["unavailable_after_kill_s"] = round(time.monotonic() - killed, 1)
        bridge.start()
        wait("the entities available again", lambda: state("points_1")["state"] != "unavailable")

        # -- 11. The board stops: its connectivity goes off; the score stays.
        board.stop()
        board = None
        wait("the Board connectivity off", lambda: state("board")["state"] == "off", 60)
        assert state("points_1")["state"] not in ("unavailable", "unknown")

        # -- 12. The integrations restart: the buttons are unavailable meanwhile; no config is published again.
        since = time.monotonic()
        integrations.stop()
        wait("the buttons unavailable", lambda: state("undo")["state"] == "unavailable")
        integrations.start()
        wait("the buttons available again", lambda: state("undo")["state"] != "unavailable")
        time.sleep(3)
        assert spy.on(f"{PREFIX}/device/flickboard_{BOARD}/config", since) == [], "a config published again"

        # -- 13. The board removed: its retained scoreboard cleared, its device gone from Home Assistant.
        bridge.stop()
        spy.publish(f"flickboard/{BOARD}/scoreboard", b"", retain=True)
        wait("the device removed", lambda: device(ha, BOARD) is None and registry(ha, BOARD) == {} and 1, 60)
        time.sleep(2)
    finally:
        if board is not None:
            board.stop()
        integrations.stop()
        bridge.stop()
        spy.close()
    problems = ha.problems(WORDS, MQTT_LOGGERS)
    report["seconds"] = round(time.monotonic() - t_start)
    print("\nreal Home Assistant check:", json.dumps(report, indent=1))
    (ROOT / "build" / "ha").mkdir(parents=True, exist_ok=True)
    (ROOT / "build" / "ha" / "report.json").write_text(json.dumps(report, indent=1))
    assert problems == [], "Home Assistant logged:\n" + "\n".join(problems)
    assert "Traceback" not in integrations.text() + bridge.text()
