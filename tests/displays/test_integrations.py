"""The integrations (host/displays/integrations/) against real parts: a Mosquitto started here, a real bridge run
in-process (host/cli/bridge.py `start_bridge`) whose games are driven with manual entries, the integrations' runner, and
a plain paho client that sees what they publish. Every payload is checked against the format its receiver documents (the
URLs are in each test), and every Home Assistant template is rendered against real scoreboard documents and moments from
the bridge."""

from __future__ import annotations

import ast
import contextlib
import importlib
import json
import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from flickboard.cli.bridge import Running, start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.displays.integrations.awtrix import Awtrix
from flickboard.displays.integrations.commands import Commands
from flickboard.displays.integrations.common import SIDE_COLORS, Integration, hex_color
from flickboard.displays.integrations.homeassistant import MOMENT_EVENTS, HomeAssistant
from flickboard.displays.integrations.runner import IntegrationRunner, build_runner, configure_parser
from flickboard.displays.integrations.wled import SCRATCH_SLOT, Wled
from flickboard.errors import UserError
from flickboard.mqtt import MAX_DOCUMENT
from flickboard.sim.broker import Broker, mosquitto

ROOT = Path(__file__).resolve().parents[2]
CYAN, YELLOW = (hex_color(c) for c in SIDE_COLORS)  # Ana's side, Ben's side


# ---------------------------------------------------------------- real parts


class Spy:
    """A plain MQTT client that keeps every message it sees: (topic, payload, retained)."""

    def __init__(self, broker: Broker, topics: list[str]) -> None:
        self.msgs: list[tuple[str, bytes, bool]] = []
        self.cond = threading.Condition()
        ready = threading.Event()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"spy-{uuid.uuid4().hex[:6]}")

        def on_message(_c: Any, _u: Any, m: mqtt.MQTTMessage) -> None:
            with self.cond:
                self.msgs.append((m.topic, bytes(m.payload), bool(m.retain)))
                self.cond.notify_all()

        c.on_message = on_message
        c.on_connect = lambda cl, *_: cl.subscribe([(t, 1) for t in topics])
        c.on_subscribe = lambda *_: ready.set()
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        assert ready.wait(15), "the spy could not subscribe"
        self.client = c

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(15)

    def mark(self) -> int:
        with self.cond:
            return len(self.msgs)

    def wait(self, pred: Callable[[str, bytes], bool], timeout: float = 15, since: int = 0) -> tuple[str, bytes, bool]:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for m in self.msgs[since:]:
                    if pred(m[0], m[1]):
                        return m
                left = deadline - time.monotonic()
                assert left > 0, f"nothing matched within {timeout} s; saw {[t for t, _, _ in self.msgs[since:]]}"
                self.cond.wait(min(left, 0.05))  # a predicate may look beyond the messages

    def on(self, topic: str, since: int = 0) -> list[bytes]:
        with self.cond:
            return [p for t, p, _ in self.msgs[since:] if t == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def bridge_for(broker: Broker, tmp_path: Path, match: str = "games:1") -> Running:
    return start_bridge(
        BridgeConfig(
            mqtt=parse_mqtt_url(broker.url),
            boards=("t1",),
            journals=str(tmp_path / "journals"),
            players=("Ana", "Ben"),
            match=match,
            client_id=f"bridge-{uuid.uuid4().hex[:6]}",
        )
    )


def runner_for(broker: Broker, *integrations: Callable[[IntegrationRunner], Any], **kw: Any) -> IntegrationRunner:
    runner = IntegrationRunner(parse_mqtt_url(broker.url), client_id=f"int-{uuid.uuid4().hex[:6]}", **kw)
    for make in integrations:
        runner.add(make(runner))
    runner.start()
    assert runner.wait_ready(15), "the runner did not connect"
    return runner


def enter(running: Running, *lines: str) -> None:
    for line in lines:
        out = running.bridge.submit("t1", line)
        assert out.accepted, (line, out.message)


def docs(spy: Spy, board: str = "t1") -> list[dict[str, Any]]:
    return [json.loads(p) for p in spy.on(f"flickboard/{board}/scoreboard")]


# ---------------------------------------------------------------- Home Assistant templates, evaluated here


class Template:
    """Renders the small part of Jinja our value templates use, the way Home Assistant does for MQTT
    (https://www.home-assistant.io/docs/configuration/templating/#using-templates-with-the-mqtt-integration):
    `value` is the payload text, `value_json` the parsed JSON; `{{ expr }}` prints str(expr) (None -> "None");
    `{% if %}`, `{% elif %}`, `{% else %}`, `{% endif %}`. An expression is dotted keys, integer indexes (also
    negative), string literals, lists of them, `in`, `and`, `or`, `not` and a difference of two numbers. Anything
    else, a missing key or a key that Jinja would read as a dict method (`.items`, `.keys`, ...) fails the test
    instead of rendering quietly."""

    TOKEN = re.compile(r"\{\{(.*?)\}\}|\{%(.*?)%\}", re.S)

    def __init__(self, text: str) -> None:
        self.text = text

    def render(self, payload: bytes) -> str:
        env: dict[str, Any] = {"value": payload.decode()}
        with contextlib.suppress(ValueError):  # as Home Assistant: `value_json` only for a payload that is JSON
            env["value_json"] = json.loads(payload)
        out: list[str] = []
        stack: list[list[bool]] = []  # per open if: [this branch is on, a branch was taken]
        pos = 0
        for m in self.TOKEN.finditer(self.text):
            on = all(s[0] for s in stack)
            if on:
                out.append(self.text[pos : m.start()])
            pos = m.end()
            if m.group(1) is not None:
                if on:
                    out.append(str(self.eval(m.group(1), env)))
                continue
            word, _, expr = m.group(2).strip().partition(" ")
            if word == "if":
                taken = on and bool(self.eval(expr, env))
                stack.append([taken, taken])
            elif word == "elif":
                s = stack[-1]
                outer = all(x[0] for x in stack[:-1])  # inside a branch not taken, nothing is evaluated
                s[0] = outer and not s[1] and bool(self.eval(expr, env))
                s[1] = s[1] or s[0]
            elif word == "else":
                s = stack[-1]
                s[0], s[1] = not s[1], True
            elif word == "endif":
                stack.pop()
            else:
                raise AssertionError(f"unsupported statement {word!r} in {self.text}")
        assert not stack, f"unclosed if in {self.text}"
        out.append(self.text[pos:])
        return "".join(out)

    def eval(self, expr: str, env: dict[str, Any]) -> Any:
        return self._node(ast.parse(expr.strip(), mode="eval").body, env)

    def _node(self, n: ast.AST, env: dict[str, Any]) -> Any:
        if isinstance(n, ast.Name) and n.id in env:
            return env[n.id]
        if isinstance(n, ast.Constant) and isinstance(n.value, str | int):
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            number = self._node(n.operand, env)
            assert isinstance(number, int), self.text
            return -number
        if isinstance(n, ast.List):
            return [self._node(e, env) for e in n.elts]
        if isinstance(n, ast.Attribute):
            obj = self._node(n.value, env)
            assert isinstance(obj, dict), f".{n.attr} of a {type(obj).__name__} in {self.text}"
            assert n.attr not in dir(dict), f"Jinja reads .{n.attr} as the dict method: {self.text}"
            assert n.attr in obj, f"no key {n.attr!r} (Home Assistant would render nothing): {self.text}"
            return obj[n.attr]
        if isinstance(n, ast.Subscript):
            obj, i = self._node(n.value, env), self._node(n.slice, env)
            assert isinstance(obj, list) and isinstance(i, int) and -len(obj) <= i < len(obj), (obj, i, self.text)
            return obj[i]
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.In):
            return self._node(n.left, env) in self._node(n.comparators[0], env)
        if (  # `name is defined`: a variable (value_json is one only for a JSON payload)
            isinstance(n, ast.Compare)
            and isinstance(n.ops[0], ast.Is)
            and isinstance(n.comparators[0], ast.Name)
            and n.comparators[0].id == "defined"
            and isinstance(n.left, ast.Name)
        ):
            return n.left.id in env
        if (  # `x is not none`
            isinstance(n, ast.Compare)
            and isinstance(n.ops[0], ast.IsNot)
            and isinstance(n.comparators[0], ast.Name)
            and n.comparators[0].id == "none"
        ):
            return self._node(n.left, env) is not None
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq):
            return self._node(n.left, env) == self._node(n.comparators[0], env)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr) and isinstance(n.right, ast.Name):  # a filter
            value = self._node(n.left, env)
            if n.right.id == "int":
                assert type(value) in (int, float), (value, self.text)
                return int(value)
            if n.right.id == "tojson":
                return json.dumps(value)
            raise AssertionError(f"unsupported filter {n.right.id} in {self.text}")
        if (  # `x.key is defined`: the key is there (its object must be)
            isinstance(n, ast.Compare)
            and isinstance(n.ops[0], ast.Is)
            and isinstance(n.comparators[0], ast.Name)
            and n.comparators[0].id == "defined"
            and isinstance(n.left, ast.Attribute)
        ):
            obj = self._node(n.left.value, env)
            assert isinstance(obj, dict), f".{n.left.attr} of a {type(obj).__name__} in {self.text}"
            return n.left.attr in obj
        if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.And):  # Jinja's `and`: the first falsy value, or the last
            value: Any = None
            for v in n.values:
                value = self._node(v, env)
                if not value:
                    return value
            return value
        if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or):  # Jinja's `or`: the first truthy value, or the last
            for v in n.values:
                value = self._node(v, env)
                if value:
                    return value
            return value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return not self._node(n.operand, env)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub | ast.FloorDiv):  # numbers only, as in Jinja
            left, right = self._node(n.left, env), self._node(n.right, env)
            assert all(type(x) in (int, float) for x in (left, right)), (left, right, self.text)
            return left - right if isinstance(n.op, ast.Sub) else left // right
        raise AssertionError(f"unsupported expression {ast.dump(n)} in {self.text}")


def render(template: str, payload: bytes) -> str:
    """Our strict rendering, and Jinja's own (Home Assistant's engine, a test dependency): both must agree."""
    ours = Template(template).render(payload)
    sandbox = importlib.import_module("jinja2.sandbox")
    env = sandbox.ImmutableSandboxedEnvironment()
    variables: dict[str, Any] = {"value": payload.decode()}
    with contextlib.suppress(ValueError):
        variables["value_json"] = json.loads(payload)
    theirs = env.from_string(template).render(**variables)
    assert theirs == ours, (template, theirs, ours)
    return ours


def test_the_template_renderer_is_strict() -> None:
    """The renderer above must fail where Home Assistant would show nothing or something else."""
    doc = json.dumps({"a": {"b": [1, 2]}, "n": None, "t": "x"}).encode()
    assert render("{{ value_json.a.b[-1] }}", doc) == "2"
    assert render("{% if value_json.n %}yes{% elif value_json.t in ['x'] %}x{% else %}no{% endif %}", doc) == "x"
    assert render("{{ value_json.n }}", doc) == "None"
    assert render("{% if value_json.a is defined and value_json.a.c is defined %}y{% else %}n{% endif %}", doc) == "n"
    assert render("{% if value_json.n and value_json.n.x is defined %}y{% else %}n{% endif %}", doc) == "n"
    assert (
        render("{% if value_json.n or value_json.t %}{{ value_json.a.b[1] - value_json.a.b[0] }}{% endif %}", doc)
        == "1"
    )
    assert render("{% if not value_json.n %}y{% endif %}", doc) == "y"
    bad_ones = (
        "{{ value_json.c }}",
        "{{ value_json.a.items }}",
        "{{ value_json.a.b[2] }}",
        "{{ value_json.n.x }}",
        "{{ value_json.t - value_json.a.b[0] }}",
    )
    for bad in (*bad_ones, "{% if value_json.c.d is defined %}{% endif %}"):
        with pytest.raises(AssertionError):
            Template(bad).render(doc)


# ---------------------------------------------------------------- Home Assistant


COMMON_KEYS = {"p", "name", "unique_id", "default_entity_id", "availability"}
ALLOWED = {  # the configuration variables each platform documents (only those we may use), plus the platform `p`
    "sensor": COMMON_KEYS
    | {"state_topic", "value_template", "unit_of_measurement", "state_class", "icon", "entity_category"}
    | {"device_class", "suggested_display_precision", "json_attributes_topic", "json_attributes_template"},
    "binary_sensor": COMMON_KEYS | {"state_topic", "value_template", "device_class", "entity_category"},
    "event": COMMON_KEYS | {"state_topic", "value_template", "event_types", "icon"},
    "button": COMMON_KEYS | {"command_topic", "payload_press", "availability_mode", "icon"},
    "device_automation": {"p", "automation_type", "topic", "value_template", "payload", "type", "subtype"},
}
DEVICE_KEYS = {
    "ids",
    "name",
    "mf",
    "mdl",
    "sw",
    "cu",
}  # identifiers, manufacturer, model, sw_version, configuration_url
ORIGIN_KEYS = {"name", "sw", "url"}
SENSOR_KEYS = [
    *(f"{k}_{n}" for n in (1, 2) for k in ("points", "games_won", "last_game", "twenties")),
    "game",
    "state",
]
HEARTBEAT_KEYS = ["signal", "uptime", "outbox", "drops", "reconnects"]  # from board_link.heartbeat
DIAGNOSTIC_KEYS = [
    *("board", "events_missing", "only_repeats", "events_behind", "board_messages", "boot", "link", "queued"),
    "refused",
    *HEARTBEAT_KEYS,
]
TRIGGER_KEYS = ["twenty", "ditch", "game_over", "match_over", "manche_over", "round_over"]
BUTTON_KEYS = ["confirm", "undo", "reviewed"]


def bridge_available(bridge: str | None) -> dict[str, str]:
    """A component's availability on the status of the bridge that keeps the board (None: no scoreboard names one
    yet: the deprecated shared status)."""
    topic = "flickboard/bridge/status" if bridge is None else f"flickboard/bridge/{bridge}/status"
    return {"topic": topic, "payload_available": "online", "payload_not_available": "offline"}


def integrations_available(client_id: str = "flickboard-integrations") -> dict[str, str]:
    """The buttons' and the press events' availability: this program's own status (its last will says offline)."""
    topic = f"homeassistant/flickboard/{client_id}/status"
    return {"topic": topic, "payload_available": "online", "payload_not_available": "offline"}


LEGACY_COMPONENTS = {
    **{k: "sensor" for k in (*SENSOR_KEYS, "shooter", "shot_kind")},
    "board": "binary_sensor",
    "moment": "event",
    **{k: "device_automation" for k in TRIGGER_KEYS},
}


def legacy_topics(prefix: str, board: str) -> set[str]:
    """The per-entity discovery topics the previous version published for a board."""
    return {f"{prefix}/{c}/flickboard_{board}/{k}/config" for k, c in LEGACY_COMPONENTS.items()}


def device_topic(prefix: str, board: str) -> str:
    return f"{prefix}/device/flickboard_{board}/config"


def wait_device(
    spy: Spy, prefix: str, board: str, since: int = 0, buttons: bool = False, timeout: float = 15
) -> dict[str, Any]:
    """The board's latest non-empty device config seen since `since` (with the buttons, if asked)."""
    topic = device_topic(prefix, board)

    def ok(t: str, p: bytes) -> bool:
        return t == topic and bool(p) and (not buttons or "confirm" in json.loads(p)["cmps"])

    spy.wait(ok, since=since, timeout=timeout)
    return json.loads([p for p in spy.on(topic, since) if p][-1])


def check_device_config(config: dict[str, Any], board: str, bridge: str | None) -> None:
    """Device-based discovery (https://www.home-assistant.io/integrations/mqtt/#device-discovery-payload): `dev` and
    `o` at the top, the components under `cmps`, each with its platform `p`, every entity with a `unique_id`."""
    assert set(config) == {"dev", "o", "qos", "cmps"}, set(config)
    dev = config["dev"]
    assert set(dev) <= DEVICE_KEYS and dev["ids"] == [f"flickboard_{board}"] and dev["name"] == f"Flickboard {board}"
    assert dev["mf"] and dev["mdl"] and dev["sw"], dev
    assert set(config["o"]) <= ORIGIN_KEYS and config["o"]["name"] == "flickboard" and config["o"]["sw"]
    assert config["qos"] == 1
    for key, c in config["cmps"].items():
        platform = c["p"]
        assert set(c) <= ALLOWED[platform], (key, set(c) - ALLOWED[platform])
        if platform == "device_automation":
            assert c["automation_type"] == "trigger" and c["topic"] == f"flickboard/{board}/events"
            continue
        assert c["unique_id"] == f"flickboard_{board}_{key}", c
        assert c["default_entity_id"] == f"{platform}.flickboard_{board.replace('-', '_')}_{key}", c
        if key == "press":  # what became of a press: told by this program, available while it runs
            assert c["availability"] == [integrations_available()] and c["state_topic"].endswith(f"/{board}/press")
            continue
        assert c["availability"][0] == bridge_available(bridge), c
        if platform == "button":
            assert c["command_topic"] == f"homeassistant/flickboard/{board}/command" and c["payload_press"] == key
            assert c["availability_mode"] == "all" and c["availability"][1:] == [integrations_available()]
            continue
        want = f"flickboard/{board}/events" if platform == "event" else f"flickboard/{board}/scoreboard"
        assert c["state_topic"] == want, c
        if "state_class" in c:  # statistics: a number; counts have no unit ("1 twenties"), the name says it
            assert c["state_class"] in ("measurement", "total", "total_increasing")
            assert c.get("unit_of_measurement") in (None, "dBm", "s"), c


def sample_doc() -> dict[str, Any]:
    """The scoreboard document of docs/mqtt.md (made by a bridge: a board hello, a shot, a provisional twenty)."""
    return json.loads((ROOT / "docs" / "mqtt.md").read_text().split("```json\n", 1)[1].split("```", 1)[0])


def test_home_assistant_device_discovery_and_templates_over_real_scoreboards(broker: Broker, tmp_path: Path) -> None:
    """One retained device-based config per board (Home Assistant 2024.11+: `<prefix>/device/<id>/config` with `dev`,
    `o` and `cmps`, https://www.home-assistant.io/integrations/mqtt/#device-discovery-payload) and no per-entity
    topics; stable unique ids; the bridge's status as availability; points with a state class and a unit so Home
    Assistant keeps statistics; and value templates that pick the right values out of the bridge's real scoreboard
    documents and moments, from the first document to the end of the match."""
    spy = Spy(broker, ["homeassistant/#", "flickboard/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards))  # started after the bridge: late
    try:
        config = wait_device(spy, "homeassistant", "t1")
        check_device_config(config, "t1", running.bridge.bridge_id)
        late = Spy(broker, ["homeassistant/#"])  # retained: a Home Assistant starting now gets it
        late.wait(lambda t, p: t == device_topic("homeassistant", "t1") and json.loads(p) == config)
        assert not any(p for t, p, _ in late.msgs if t != device_topic("homeassistant", "t1")), late.msgs
        late.close()
        cmps = config["cmps"]
        assert set(cmps) == {*SENSOR_KEYS, *DIAGNOSTIC_KEYS, "moment", *TRIGGER_KEYS}  # no buttons: commands off
        ids = [c["unique_id"] for c in cmps.values() if "unique_id" in c]
        assert len(ids) == len(set(ids)) == len(SENSOR_KEYS) + len(DIAGNOSTIC_KEYS) + 1
        sensor = {k: cmps[k] for k in SENSOR_KEYS}
        assert sensor["points_1"]["name"] == "Ana points" and sensor["twenties_2"]["name"] == "Ben twenties"
        for k in ("points_1", "points_2", "last_game_1", "games_won_2", "twenties_1"):
            assert sensor[k]["state_class"] == "measurement", k  # a match's numbers start again at the next match
        assert "state_class" not in sensor["game"] and "state_class" not in sensor["state"]
        assert all(cmps[k]["entity_category"] == "diagnostic" for k in DIAGNOSTIC_KEYS)
        assert cmps["refused"]["state_class"] == cmps["board_messages"]["state_class"] == "total_increasing"
        event = cmps["moment"]
        assert "twenty" in event["event_types"] and "match-over" in event["event_types"]

        enter(running, "shot zone", "shot call in")  # Ana's free shot, then Ben's called twenty
        spy.wait(lambda t, p: t == "flickboard/t1/scoreboard" and json.loads(p)["entries"] == 2)
        mid = json.dumps(docs(spy)[-1]).encode()
        enter(running, "forfeit Ana other")  # the game and the one-game match go to Ben
        spy.wait(lambda t, p: t == "flickboard/t1/scoreboard" and json.loads(p)["score"]["over"])
        spy.wait(lambda t, p: t == "flickboard/t1/events" and json.loads(p)["type"] == "match-over")  # after it
        first, last = (json.dumps(d).encode() for d in (docs(spy)[0], docs(spy)[-1]))

        def values(doc: bytes, keys: list[str] = SENSOR_KEYS) -> dict[str, str]:
            return {k: render(cmps[k]["value_template"], doc) for k in keys}

        def attributes(doc: bytes) -> dict[str, Any]:
            return dict(json.loads(render(sensor["state"]["json_attributes_template"], doc)))

        assert values(first) == {
            **{f"{k}_{n}": "0" for n in (1, 2) for k in ("points", "twenties")},
            **{f"games_won_{n}": "0" for n in (1, 2)},  # 0.0 in the document: shown as a whole number
            **{f"last_game_{n}": "None" for n in (1, 2)},  # "None": the state is unknown
            "game": "1",
            "state": "in progress",
        }
        assert attributes(first) == {"shooter": "Ana", "shot_kind": "free"}
        after = values(mid)
        assert (after["twenties_1"], after["twenties_2"], attributes(mid)["shooter"]) == ("0", "1", "Ana")
        end = values(last)
        assert (end["points_1"], end["points_2"], end["last_game_2"], end["games_won_2"]) == ("0", "20", "20", "1")
        assert (end["state"], end["twenties_2"]) == ("over: Ben wins", "None")
        assert attributes(last) == {"shooter": None, "shot_kind": None}
        half = json.loads(last)
        half["score"]["games_won"] = [0.5, 1.5]  # a tied game counts a half to each side
        assert render(sensor["games_won_2"]["value_template"], json.dumps(half).encode()) == "1.5"
        # An empty payload (the retained scoreboard cleared, to remove the board): every template renders unknown,
        # where Home Assistant would log "'value_json' is undefined" for each entity.
        for key, c in cmps.items():
            for field in ("value_template", "json_attributes_template"):
                if field in c and c.get("state_topic") == "flickboard/t1/scoreboard":
                    assert render(c[field], b"") in ("None", "{}"), (key, field)
        # no board ever connected: the link is unknown, the diagnostics say so
        assert json.loads(last)["board_link"]["heartbeat"] is None
        assert values(last, DIAGNOSTIC_KEYS) == {
            **dict.fromkeys(("events_missing", "events_behind", "board_messages", "boot", "link"), "None"),
            **dict.fromkeys(HEARTBEAT_KEYS, "None"),
            "board": "None",  # board_link.online is null: not known, which is not "disconnected"
            "only_repeats": "OFF",
            "queued": "0",
            "refused": "0",
        }
        online = json.loads(last)
        online["board_link"]["online"] = True
        assert render(cmps["board"]["value_template"], json.dumps(online).encode()) == "ON"
        online["board_link"]["online"] = False
        assert render(cmps["board"]["value_template"], json.dumps(online).encode()) == "OFF"
        needs = json.loads(mid)
        needs["needs_review"] = True
        assert render(sensor["state"]["value_template"], json.dumps(needs).encode()) == "needs review"

        moments = spy.on("flickboard/t1/events")
        by_type = {json.loads(p)["type"]: p for p in moments}
        assert {"shot", "twenty", "game-over", "match-over"} <= set(by_type)
        fired = json.loads(render(event["value_template"], by_type["twenty"]))
        assert fired["event_type"] == "twenty" and fired["moment"]["side"] == "Ben"
        assert fired["event_type"] in event["event_types"]
        assert render(event["value_template"], by_type["shot"]) == ""  # Home Assistant ignores an empty event
        assert "ditch" not in event["event_types"]  # every ditch would be a line in the logbook: a device trigger
        for key, moment in (("twenty", "twenty"), ("game_over", "game-over"), ("match_over", "match-over")):
            assert render(cmps[key]["value_template"], by_type[moment]) == cmps[key]["payload"] == moment
        assert render(cmps["twenty"]["value_template"], by_type["shot"]) != cmps["twenty"]["payload"]
        assert set(MOMENT_EVENTS) >= {"twenty", "game-over", "match-over", "review"}
    finally:
        runner.stop()
        running.stop()
        spy.close()
    assert runner.bad == 0 and runner.failures == 0


def test_the_diagnostics_read_the_board_link_of_a_real_board(broker: Broker, tmp_path: Path) -> None:
    """A board (lines from the firmware's own encoder) on the in-process bridge: the diagnostic entities read its
    link from the scoreboard's `board_link` (docs/mqtt.md, board_link): connected, boot, messages of this boot, the
    port, nothing missing; the board's own numbers from its heartbeat (docs/protocol.md: `rssi` dBm, `up` ms shown in
    seconds, `q`, `drop`, `rc`), unknown where the heartbeat has none; and a board behind (a hole in its seqs) turns
    the problem sensor on."""
    spy = Spy(broker, ["homeassistant/#", "flickboard/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards))
    try:
        cmps = wait_device(spy, "homeassistant", "t1")["cmps"]
        board = FirmwareBoard(running)
        board.hello()
        board.ev("shot_start", "baseline", q=1, seg=1)
        board.feed(board.enc.heartbeat(3_723_456_000, 3_723_456, 81234, 1, 2, 3, -67))  # as firmware/fb/app.py does
        spy.wait(lambda t, p: t == "flickboard/t1/scoreboard" and bool(json.loads(p)["board_link"].get("heartbeat")))
        doc = json.dumps(docs(spy)[-1]).encode()
        got = {k: render(cmps[k]["value_template"], doc) for k in DIAGNOSTIC_KEYS}
        assert got == {
            "signal": "-67",
            "uptime": "3723",
            "outbox": "1",
            "drops": "2",
            "reconnects": "3",
            "board": "ON",
            "events_missing": "OFF",
            "only_repeats": "OFF",
            "events_behind": "0",
            "board_messages": "2",
            "boot": "7",
            "link": "serial /dev/ttyX",
            "queued": "0",
            "refused": "0",
        }
        behind = json.loads(doc)
        behind["board_link"].update(high_water=5, missing=[[3, 5]], in_sync=False)
        got = {k: render(cmps[k]["value_template"], json.dumps(behind).encode()) for k in DIAGNOSTIC_KEYS}
        assert (got["events_missing"], got["events_behind"]) == ("ON", "3")
        assert cmps["events_missing"]["device_class"] == cmps["only_repeats"]["device_class"] == "problem"
        repeats = json.loads(doc)
        repeats["board_link"]["only_duplicates"] = {"since": "2026-11-24T03:00:00.000000Z", "count": 4}
        assert render(cmps["only_repeats"]["value_template"], json.dumps(repeats).encode()) == "ON"
        del repeats["board_link"]["only_duplicates"]  # a bridge of an earlier version: unknown
        assert render(cmps["only_repeats"]["value_template"], json.dumps(repeats).encode()) == "None"
        assert (cmps["signal"]["device_class"], cmps["signal"]["unit_of_measurement"]) == ("signal_strength", "dBm")
        assert (cmps["uptime"]["device_class"], cmps["uptime"]["unit_of_measurement"]) == ("duration", "s")
        assert cmps["drops"]["state_class"] == cmps["reconnects"]["state_class"] == "total_increasing"  # per boot
        assert cmps["outbox"]["state_class"] == cmps["signal"]["state_class"] == "measurement"

        mark = spy.mark()
        board.feed(board.enc.heartbeat(3_733_456_000, 3_733_456, 81234, 1, 2, 3, None))  # Wi-Fi gone: news at once
        _, usb, _ = spy.wait(lambda t, _p: t == "flickboard/t1/scoreboard", since=mark)
        assert json.loads(usb)["board_link"]["heartbeat"]["rssi"] is None
        assert render(cmps["signal"]["value_template"], usb) == "None"  # unknown, not 0
        assert render(cmps["uptime"]["value_template"], usb) == "3733"
        older = json.loads(usb)
        del older["board_link"]["heartbeat"]  # a bridge of an earlier version: every one unknown
        assert {render(cmps[k]["value_template"], json.dumps(older).encode()) for k in HEARTBEAT_KEYS} == {"None"}
    finally:
        runner.stop()
        running.stop()
        spy.close()


def test_an_upgrade_migrates_the_per_entity_configs_and_a_restart_publishes_nothing(
    broker: Broker, tmp_path: Path
) -> None:
    """The per-entity configs of an earlier version still on the broker are moved with Home Assistant's own migration
    (https://www.home-assistant.io/integrations/mqtt/#migration-from-single-component-to-device-based-discovery):
    `{"migrate_discovery": true}` on each old topic, then the device config, so the entities keep their registry
    entries. A restart then publishes nothing: the broker's copy is right, and an empty payload on an old topic whose
    entity now lives in the device config makes Home Assistant warn ("conflicting discovery message")."""
    prefix = "homeassistant"
    spy = Spy(broker, [f"{prefix}/#"])
    old = legacy_topics(prefix, "t1")
    for topic in old:  # what the earlier version left on the broker
        spy.publish(topic, json.dumps({"name": "old", "unique_id": topic}), retain=True)
    other = f"{prefix}/sensor/someone_else/points_1/config"  # not ours: left alone
    spy.publish(other, b'{"name": "theirs"}', retain=True)
    running = bridge_for(broker, tmp_path)
    mark = spy.mark()
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards))
    try:
        wait_device(spy, prefix, "t1", since=mark)
        with spy.cond:
            seen = [(t, p) for t, p, _ in spy.msgs[mark:]]
        moved = [i for i, (t, p) in enumerate(seen) if t in old and json.loads(p) == {"migrate_discovery": True}]
        device = next(i for i, (t, p) in enumerate(seen) if t == device_topic(prefix, "t1") and p)
        assert {seen[i][0] for i in moved} == old and max(moved) < device  # migrated first, then the device
        assert not any(t == other for t, _ in seen)
    finally:
        runner.stop()
    mark = spy.mark()
    again = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards))
    try:
        time.sleep(2.5)  # past the settling time: it had the chance to publish
        with spy.cond:
            published = [t for t, _, _ in spy.msgs[mark:]]
        assert published == [], published  # nothing: the device config on the broker is the right one
        assert again.integrations[0].announcements == 0  # type: ignore[attr-defined]
    finally:
        again.stop()
        running.stop()
        spy.publish(other, b"", retain=True)
        spy.close()


def test_a_board_is_announced_once_from_its_first_scoreboard(broker: Broker) -> None:
    """A Wi-Fi board's status comes before its first scoreboard: nothing is announced from the status (its names and
    the bridge that keeps it are not known yet), and the first config, from the scoreboard, is the right one. Home
    Assistant applies a second config sent while it sets up the first to only the components it has finished."""
    spy = Spy(broker, ["homeassistant/#"])
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards))
    try:
        spy.publish("flickboard/table-3/status", "online", retain=True)
        time.sleep(2.5)
        assert spy.on(device_topic("homeassistant", "table-3")) == []
        spy.publish("flickboard/table-3/scoreboard", json.dumps(sample_doc()), retain=True)
        config = wait_device(spy, "homeassistant", "table-3")
        check_device_config(config, "table-3", "flickboard-bridge")
        assert config["cmps"]["points_1"]["name"] == "Ana points"
        time.sleep(1.5)
        assert len([p for p in spy.on(device_topic("homeassistant", "table-3")) if p]) == 1
    finally:
        runner.stop()
        spy.publish("flickboard/table-3/status", b"", retain=True)
        spy.publish("flickboard/table-3/scoreboard", b"", retain=True)
        spy.publish(device_topic("homeassistant", "table-3"), b"", retain=True)
        spy.close()


def test_a_cleared_scoreboard_retracts_the_board_and_so_does_the_retract_option(broker: Broker, tmp_path: Path) -> None:
    """A board is removed when its retained scoreboard is cleared (an empty retained message on
    `flickboard/<board>/scoreboard`): its device config is cleared with an empty retained payload, which removes the
    device from Home Assistant. `flickboard integrations --retract BOARD` does the same on demand and exits."""
    spy = Spy(broker, ["homeassistant/#", "flickboard/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards))
    topic = device_topic("homeassistant", "t1")
    try:
        wait_device(spy, "homeassistant", "t1")
        running.stop()  # the bridge would publish the scoreboard again
        mark = spy.mark()
        spy.publish("flickboard/t1/scoreboard", b"", retain=True)
        spy.wait(lambda t, p: t == topic and p == b"", since=mark)
        assert runner.boards.known() == []
        late = Spy(broker, ["homeassistant/#"])
        time.sleep(0.3)
        assert [t for t, p, r in late.msgs if r and p] == [], late.msgs  # nothing of t1 left
        late.close()
    finally:
        runner.stop()
        running.stop()

    gone = device_topic("homeassistant", "t9")
    spy.publish(gone, json.dumps({"dev": {"ids": ["flickboard_t9"]}, "o": {"name": "flickboard"}, "cmps": {}}), True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "flickboard.displays.integrations", "--mqtt", broker.url, "--homeassistant"]
    p = subprocess.run([*cmd, "--retract", "t9"], capture_output=True, text=True, env=env, timeout=30)
    assert p.returncode == 0 and "t9 retracted" in p.stdout, (p.stdout, p.stderr)
    late = Spy(broker, ["homeassistant/#"])
    time.sleep(0.3)
    assert [t for t, p, r in late.msgs if r and p] == [], late.msgs
    late.close()
    spy.close()


def test_home_assistant_reannounces_only_what_changed_and_what_the_broker_lost(broker: Broker, tmp_path: Path) -> None:
    """Home Assistant's birth message (`online` on `<prefix>/status`, https://www.home-assistant.io/integrations/
    mqtt/#birth-and-last-will-messages) finds every config on the broker (retained): nothing is published again, under
    a configurable prefix. A config the broker lost is published again at the birth message. A new match with other
    players renames the side entities (a real change: published, same unique ids)."""
    spy = Spy(broker, ["ha-test/#", "flickboard/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards, prefix="ha-test"))
    ha = runner.integrations[0]
    try:
        first = wait_device(spy, "ha-test", "t1")
        time.sleep(1.5)
        done = ha.announcements  # type: ignore[attr-defined]
        mark = spy.mark()
        spy.publish("ha-test/status", "online")
        time.sleep(2)
        assert spy.on(device_topic("ha-test", "t1"), mark) == [] and ha.announcements == done  # type: ignore[attr-defined]
        spy.publish(device_topic("ha-test", "t1"), b"", retain=True)  # the broker lost it (or someone cleared it)
        spy.publish("ha-test/status", "online")
        again = wait_device(spy, "ha-test", "t1", since=mark)
        assert again == first
        mark = spy.mark()
        answer = running.bridge.mqtt_input("t1", json.dumps({"new": {"players": ["Cy", "Di"]}}).encode())
        assert answer["ok"], answer
        spy.wait(
            lambda t, p: (
                t == device_topic("ha-test", "t1") and json.loads(p)["cmps"]["points_1"]["name"] == "Cy points"
            ),
            since=mark,
        )
        renamed = wait_device(spy, "ha-test", "t1", since=mark)
        assert {c.get("unique_id") for c in renamed["cmps"].values()} == {
            c.get("unique_id") for c in first["cmps"].values()
        }
    finally:
        runner.stop()
        running.stop()
        spy.publish(device_topic("ha-test", "t1"), b"", retain=True)
        spy.close()


def test_the_device_follows_the_bridge_its_scoreboard_names(broker: Broker) -> None:
    """Availability is the status topic of the bridge that keeps the board (the scoreboard's `bridge`): the device
    config is published again when another bridge keeps it, and a scoreboard of a bridge older than per-bridge topics
    (no `bridge`) falls back to the shared `flickboard/bridge/status`."""
    spy = Spy(broker, ["homeassistant/#"])
    doc = sample_doc()
    spy.publish("flickboard/table-3/scoreboard", json.dumps(doc), retain=True)
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards))
    ha = runner.integrations[0]
    try:
        check_device_config(wait_device(spy, "homeassistant", "table-3"), "table-3", "flickboard-bridge")
        done = ha.announcements  # type: ignore[attr-defined]
        spy.publish("flickboard/table-3/scoreboard", json.dumps({**doc, "updated": "later"}), retain=True)
        time.sleep(0.3)
        assert ha.announcements == done  # type: ignore[attr-defined]  # the same bridge: nothing to announce
        mark = spy.mark()
        spy.publish("flickboard/table-3/scoreboard", json.dumps({**doc, "bridge": "annex"}), retain=True)
        check_device_config(wait_device(spy, "homeassistant", "table-3", since=mark), "table-3", "annex")
        mark = spy.mark()
        older = {k: v for k, v in doc.items() if k != "bridge"}
        spy.publish("flickboard/table-3/scoreboard", json.dumps(older), retain=True)
        check_device_config(wait_device(spy, "homeassistant", "table-3", since=mark), "table-3", None)
    finally:
        runner.stop()
        spy.publish("flickboard/table-3/scoreboard", b"", retain=True)
        spy.close()
    assert runner.bad == 0 and runner.failures == 0


def test_the_offline_birth_message_changes_nothing(broker: Broker) -> None:
    """Only `online` on the birth topic means Home Assistant (re)started: `offline` checks nothing."""
    spy = Spy(broker, ["homeassistant/#"])
    runner = runner_for(broker, lambda r: HomeAssistant(r.publish, r.boards), boards=("table-3",))
    ha = runner.integrations[0]
    try:
        spy.publish("flickboard/table-3/scoreboard", json.dumps(sample_doc()), retain=True)
        wait_device(spy, "homeassistant", "table-3")
        spy.publish(device_topic("homeassistant", "table-3"), b"", retain=True)  # gone from the broker
        done = ha.announcements  # type: ignore[attr-defined]
        spy.publish("homeassistant/status", "offline")
        time.sleep(2)
        assert ha.announcements == done  # type: ignore[attr-defined]
        spy.publish("homeassistant/status", "online")
        spy.wait(lambda *_: ha.announcements > done)  # type: ignore[attr-defined]
    finally:
        runner.stop()
        spy.publish("flickboard/table-3/scoreboard", b"", retain=True)
        spy.publish(device_topic("homeassistant", "table-3"), b"", retain=True)
        spy.close()


# ---------------------------------------------------------------- commands: buttons -> manual entries


class FirmwareBoard:
    """A USB board on the in-process bridge: lines from the firmware's own encoder (firmware/fb/proto.py)."""

    def __init__(self, running: Running, board: str = "t1", boot: int = 7) -> None:
        from fb import proto

        self.running = running
        self.enc = proto.Encoder(board, boot, 0)

    def feed(self, line: str) -> None:
        self.running.bridge.serial_line("/dev/ttyX", line, lambda _line: None)

    def hello(self) -> None:
        self.feed(self.enc.hello(0, "1.0", "pico_w", [{"name": "hole", "kind": "beam"}], "power"))

    def ev(self, kind: str, sensor: str, **fields: int) -> None:
        self.feed(self.enc.event(kind, sensor, 1000 * self.enc.seq, fields))


def with_commands(
    buttons: bool, prefix: str = "homeassistant", **kw: Any
) -> tuple[list[Commands], Callable[[IntegrationRunner], Any], Callable[[IntegrationRunner], Any]]:
    """The runner's Commands and a Home Assistant that sends its presses there (as build_runner wires them)."""
    kept: list[Commands] = []

    def make_commands(r: IntegrationRunner) -> Commands:
        kept.append(Commands(r.publish, r.boards, r.only, **kw))
        return kept[-1]

    def make_ha(r: IntegrationRunner) -> HomeAssistant:
        return HomeAssistant(r.publish, r.boards, prefix, commands=kept[0], buttons=buttons)

    return kept, make_commands, make_ha


def answer_to(spy: Spy, rid: str, since: int) -> dict[str, Any]:
    def mine(t: str, p: bytes) -> bool:
        return t == "flickboard/t1/result" and json.loads(p).get("id") == rid

    return json.loads(spy.wait(mine, since=since)[1])


def test_home_assistant_buttons_enter_through_the_bridge(
    broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With commands on, the device has three buttons (https://www.home-assistant.io/integrations/button.mqtt/:
    `command_topic`, `payload_press`). A press, published as Home Assistant publishes it, becomes a manual entry on
    `flickboard/t1/input` with an id of ours (docs/mqtt.md, Manual entries), which the real bridge checks: `confirm`
    takes the provisional twenty the hole beam saw (R-8: a sensor twenty stays provisional until confirmed), a
    second `confirm` is refused (there is none left) and that is logged in one line and counted, `undo` takes back
    the latest entry. The buttons are available while the bridge and this program run (its own status, with a last
    will), and what became of each press is the device's "Button press" event, with the bridge's reason for a
    refusal."""
    caplog.set_level(logging.INFO, logger="flickboard.integrations")
    spy = Spy(broker, ["homeassistant/#", "flickboard/#"])
    press_topic = "homeassistant/flickboard/t1/command"
    spy.publish(press_topic, "undo", retain=True)  # a press kept by the broker: it must not press at every start
    running = bridge_for(broker, tmp_path)
    kept, make_commands, make_ha = with_commands(buttons=True)
    runner = runner_for(broker, make_commands, make_ha)
    commands = kept[0]
    try:
        spy.wait(lambda *_: commands.counts["ignored"] == 1)
        spy.publish(press_topic, b"", retain=True)
        config = wait_device(spy, "homeassistant", "t1", buttons=True)
        check_device_config(config, "t1", running.bridge.bridge_id)
        cmps = config["cmps"]
        assert {k for k, c in cmps.items() if c["p"] == "button"} == set(BUTTON_KEYS)
        mine = integrations_available()
        assert all(cmps[k]["availability"] == [bridge_available(running.bridge.bridge_id), mine] for k in BUTTON_KEYS)
        assert cmps["press"]["event_types"] == ["entered", "refused", "unanswered", "not_sent"]
        assert spy.wait(lambda t, _p: t == mine["topic"])[1] == b"online"  # retained; its last will says offline

        board = FirmwareBoard(running)
        board.hello()
        board.ev("shot_start", "baseline", q=1, seg=1)
        board.ev("pass", "hole", dur_us=900)  # a provisional twenty for Ana
        _, payload, _ = spy.wait(
            lambda t, p: (
                t == "flickboard/t1/scoreboard" and bool(json.loads(p)["score"]["current"]["provisional_twenties"])
            )
        )
        assert payload

        mark = spy.mark()
        spy.publish(press_topic, "confirm")  # as Home Assistant publishes a press: not retained
        _, request, retained = spy.wait(lambda t, _p: t == "flickboard/t1/input", since=mark)
        req = json.loads(request)
        assert req["line"] == "confirm" and req["id"].startswith("homeassistant-") and not retained
        answer = answer_to(spy, req["id"], mark)
        assert answer["ok"] is True and isinstance(answer["entry"], int)
        doc = running.bridge.scoreboard("t1")
        assert doc["score"]["current"]["provisional_twenties"] == [] and doc["score"]["current"]["twenties"] == [1, 0]

        mark = spy.mark()
        spy.publish(press_topic, "confirm")  # nothing left to confirm: the bridge says no
        req = json.loads(spy.wait(lambda t, _p: t == "flickboard/t1/input", since=mark)[1])
        answer = answer_to(spy, req["id"], mark)
        assert answer["ok"] is False and "no provisional twenty" in answer["message"]
        spy.wait(lambda *_: commands.counts["refused"] == 1)
        refusals = [r.getMessage() for r in caplog.records if "refused by the bridge" in r.getMessage()]
        assert len(refusals) == 1 and "\n" not in refusals[0] and "no provisional twenty" in refusals[0]
        _, event, retained = spy.wait(
            lambda t, p: t == cmps["press"]["state_topic"] and json.loads(p)["event_type"] == "refused", since=mark
        )
        told = json.loads(event)  # Home Assistant's event entity reads event_type, the rest are its attributes
        assert told["event_type"] == "refused" and told["button"] == "confirm" and not retained
        assert "no provisional twenty" in told["message"]

        entries = running.bridge.scoreboard("t1")["entries"]
        mark = spy.mark()
        spy.publish(press_topic, "undo")
        req = json.loads(spy.wait(lambda t, _p: t == "flickboard/t1/input", since=mark)[1])
        assert answer_to(spy, req["id"], mark)["ok"] is True
        doc = running.bridge.scoreboard("t1")
        assert doc["entries"] == entries + 1 and doc["score"]["current"]["provisional_twenties"] != []  # undone

        mark = spy.mark()
        spy.publish(press_topic, "reviewed")  # nothing needs review: refused by the bridge
        req = json.loads(spy.wait(lambda t, _p: t == "flickboard/t1/input", since=mark)[1])
        assert answer_to(spy, req["id"], mark)["message"] == "nothing needs review"
        spy.publish(press_topic, "score 20 for me")  # not a button of ours: nothing sent
        spy.wait(lambda *_: commands.counts["ignored"] == 2)
        spy.wait(lambda *_: commands.counts["refused"] == 2)
        assert commands.counts == {"sent": 4, "entered": 2, "refused": 2, "unanswered": 0, "ignored": 2}
        assert len(spy.on("flickboard/t1/input")) == 4

        def told() -> list[str]:
            return sorted(json.loads(p)["event_type"] for p in spy.on(cmps["press"]["state_topic"]))

        spy.wait(lambda *_: told().count("refused") == 2 and "not_sent" in told())
        # the retained press is told too when the board's scoreboard came before it (the broker's order)
        assert told() in (
            ["entered", "entered", "not_sent", "refused", "refused"],
            ["entered", "entered", "not_sent", "not_sent", "refused", "refused"],
        ), told()
        mark = spy.mark()
    finally:
        runner.stop()
        running.stop()
    assert spy.wait(lambda t, _p: t == mine["topic"], since=mark)[1] == b"offline"  # stopped: no buttons
    spy.close()
    assert runner.bad == 0 and runner.failures == 0


def test_commands_are_off_by_default(broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Without --ha-commands there are no buttons, and a press published on the command topic anyway (by anyone
    who may publish there) enters nothing: it is counted and logged in one line. The command line wires it so."""
    caplog.set_level(logging.INFO, logger="flickboard.integrations")
    spy = Spy(broker, ["homeassistant/#", "flickboard/#"])
    running = bridge_for(broker, tmp_path)
    kept, make_commands, make_ha = with_commands(buttons=False)
    runner = runner_for(broker, make_commands, make_ha)
    try:
        config = wait_device(spy, "homeassistant", "t1")
        assert not any(c["p"] == "button" for c in config["cmps"].values())
        entries = running.bridge.scoreboard("t1")["entries"]
        spy.publish("homeassistant/flickboard/t1/command", "undo")
        spy.wait(lambda *_: kept[0].counts["ignored"] == 1)
        time.sleep(0.3)
        assert spy.on("flickboard/t1/input") == [] and running.bridge.scoreboard("t1")["entries"] == entries
        lines = [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()]
        assert len(lines) == 1 and "commands are off" in lines[0] and "--ha-commands" in lines[0]
    finally:
        runner.stop()
        running.stop()
        spy.close()
    off = build_runner(parse("--mqtt", "mqtt://127.0.0.1:1", "--homeassistant"))
    ha = next(i for i in off.integrations if isinstance(i, HomeAssistant))
    off.boards.docs["t1"] = sample_doc() | {"board": "t1"}
    assert ha.buttons is False and "confirm" not in ha.config("t1")["cmps"]
    assert "flickboard/+/result" not in off.topics()  # nothing to answer: the answers are not read either
    on = build_runner(parse("--mqtt", "mqtt://127.0.0.1:1", "--homeassistant", "--ha-commands"))
    ha = next(i for i in on.integrations if isinstance(i, HomeAssistant))
    assert ha.buttons is True
    assert "flickboard/+/result" in on.topics() and "homeassistant/flickboard/+/command" in on.topics()


# ---------------------------------------------------------------- AWTRIX 3


APP_KEYS = {"text", "color", "lifetime", "lifetimeMode", "progress", "progressC", "progressBC"}  # "Custom App" X
NOTIFY_KEYS = {"text", "color", "duration", "rainbow"}  # "Notification" X
HEX = re.compile(r"^#[0-9A-F]{6}$")
FRAGMENT_HEX = re.compile(r"^[0-9A-F]{6}$")  # the colored-fragments example writes "c" without '#'


def check_app(app: dict[str, Any]) -> str:
    """The app against the API's key table; returns its text."""
    assert set(app) <= APP_KEYS, set(app) - APP_KEYS
    assert isinstance(app["lifetime"], int) and app["lifetime"] > 0 and app["lifetimeMode"] == 0
    assert HEX.match(app["color"])
    for k in ("progressC", "progressBC"):
        assert k not in app or HEX.match(app[k]), app
    assert "progress" not in app or 0 <= app["progress"] <= 100
    assert all(set(f) == {"t", "c"} and FRAGMENT_HEX.match(f["c"]) for f in app["text"]), app["text"]
    return "".join(f["t"] for f in app["text"])


def check_notification(note: dict[str, Any]) -> None:
    assert set(note) <= NOTIFY_KEYS and "lifetime" not in note, note
    assert isinstance(note["text"], str) and HEX.match(note["color"]) and note["duration"] > 0


def test_awtrix_app_shows_the_score_and_twenties_notify(broker: Broker, tmp_path: Path) -> None:
    """The custom app on `<prefix>/custom/flickboard_<board>` and the notifications on `<prefix>/notify`, as in the
    AWTRIX 3 MQTT API, Custom Apps and Notifications (https://blueforcer.github.io/awtrix3/#/api): the score in
    side colours with a lifetime, updated on each scoreboard; a notification on the twenty and at the end."""
    spy = Spy(broker, ["clock1/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(broker, lambda r: Awtrix(r.publish, r.boards, "clock1", lifetime=60))
    app_topic = "clock1/custom/flickboard_t1"
    try:
        _, payload, retained = spy.wait(lambda t, _p: t == app_topic)  # the retained scoreboard, at once
        app = json.loads(payload)
        assert check_app(app) == "0:0" and not retained
        assert [f["c"] for f in app["text"]] == [CYAN[1:], "FFFFFF", YELLOW[1:]]
        assert app["lifetime"] == 60 and app["progress"] == 0 and app["progressC"] == CYAN  # Ana to shoot

        mark = spy.mark()
        enter(running, "shot zone", "shot call in")
        _, note, _ = spy.wait(lambda t, _p: t == "clock1/notify", since=mark)
        twenty = json.loads(note)
        check_notification(twenty)
        assert twenty["text"] == "TWENTY Ben" and twenty["color"] == YELLOW
        spy.wait(lambda t, p: t == app_topic and json.loads(p)["progress"] == 8, since=mark)  # 2 of 24 shots

        mark = spy.mark()
        enter(running, "forfeit Ana other")
        spy.wait(lambda t, p: t == app_topic and json.loads(p)["text"][0]["t"] == "Ben wins ", since=mark)
        spy.wait(lambda _t, _p: len(spy.on("clock1/notify", mark)) >= 2, since=mark)
        notes = [json.loads(p) for p in spy.on("clock1/notify", mark)]
        for n in notes:
            check_notification(n)
        assert notes[0]["text"] == "GAME 1: Ana 0-20 Ben, Ben wins" and notes[0]["color"] == YELLOW
        assert notes[1]["text"] == "Ben WINS THE MATCH"
        final = json.loads(spy.on(app_topic)[-1])
        assert check_app(final) == "Ben wins 0:20" and "progress" not in final
    finally:
        runner.stop()
        running.stop()
        spy.close()


def test_awtrix_app_is_kept_alive_only_while_the_bridge_is_online(broker: Broker) -> None:
    """Sent again every third of its lifetime while the bridge that keeps the board says `online` on its own status
    topic, so a quiet game keeps its app; not while it says `offline`, so the clock drops the stale score when the
    lifetime runs out. Another bridge's board is kept alive meanwhile. (A fake clock drives the timer: the lifetime
    is the AWTRIX "lifetime" key, in seconds.)"""
    now = [1000.0]
    spy = Spy(broker, ["clock2/#"])
    sample = sample_doc()  # kept by bridge flickboard-bridge
    assert sample["bridge"] == "flickboard-bridge"
    annex = {**sample, "board": "table-4", "bridge": "annex"}
    spy.publish("flickboard/bridge/flickboard-bridge/status", "online", retain=True)
    spy.publish("flickboard/bridge/annex/status", "online", retain=True)
    spy.publish("flickboard/table-3/scoreboard", json.dumps(sample), retain=True)
    spy.publish("flickboard/table-4/scoreboard", json.dumps(annex), retain=True)
    runner = runner_for(
        broker, lambda r: Awtrix(r.publish, r.boards, "clock2", lifetime=30, clock=lambda: now[0]), clock=lambda: now[0]
    )
    app_topic, other = "clock2/custom/flickboard_table-3", "clock2/custom/flickboard_table-4"
    try:
        spy.wait(lambda t, _p: t == app_topic)
        spy.wait(lambda *_: runner.boards.bridge_online("table-3") is True and runner.boards.bridge_online("table-4"))
        assert check_app(json.loads(spy.on(app_topic)[-1])) == "0:0"
        count = len(spy.on(app_topic))
        now[0] += 9  # under a third of 30 s
        time.sleep(0.4)
        assert len(spy.on(app_topic)) == count
        now[0] += 2
        spy.wait(lambda _t, _p: len(spy.on(app_topic)) > count)
        spy.publish("flickboard/bridge/flickboard-bridge/status", "offline", retain=True)  # its last will, say
        spy.wait(lambda _t, _p: runner.boards.bridge_online("table-3") is False)
        assert runner.boards.bridge_online("table-4") is True
        count, others = len(spy.on(app_topic)), len(spy.on(other))
        now[0] += 100
        spy.wait(lambda _t, _p: len(spy.on(other)) > others)  # the annex's board: still kept alive
        time.sleep(0.4)
        assert len(spy.on(app_topic)) == count
        spy.publish("flickboard/bridge/status", "online", retain=True)  # the shared status no longer speaks for it
        time.sleep(0.4)
        assert len(spy.on(app_topic)) == count and runner.boards.bridge_online("table-3") is False
        spy.publish("flickboard/bridge/flickboard-bridge/status", "online", retain=True)  # back: the app at once
        spy.wait(lambda _t, _p: len(spy.on(app_topic)) > count)
    finally:
        runner.stop()
        for topic in ("flickboard/table-4/scoreboard", "flickboard/bridge/annex/status", "flickboard/bridge/status"):
            spy.publish(topic, b"", retain=True)
        spy.publish("flickboard/bridge/flickboard-bridge/status", b"", retain=True)
        spy.close()


def test_a_press_nobody_answers_or_with_the_bridge_offline_is_counted(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """No bridge follows the board: the request goes out, no answer comes, and after the timeout it is counted
    `unanswered` and logged in one line (a fake clock runs the timer). With the bridge saying `offline` nothing is
    sent at all: a request would wait in the bridge's session and count much later."""
    caplog.set_level(logging.WARNING, logger="flickboard.integrations")
    now = [50.0]
    spy = Spy(broker, ["flickboard/#"])
    spy.publish("flickboard/t1/scoreboard", json.dumps({**sample_doc(), "board": "t1"}), retain=True)
    kept, make_commands, make_ha = with_commands(buttons=True, timeout=10, clock=lambda: now[0])
    runner = runner_for(broker, make_commands, make_ha, clock=lambda: now[0])
    commands = kept[0]
    try:
        spy.wait(lambda *_: "t1" in runner.boards.docs)
        spy.publish("homeassistant/flickboard/t1/command", "undo")
        req = json.loads(spy.wait(lambda t, _p: t == "flickboard/t1/input")[1])
        assert req["line"] == "undo"
        now[0] += 11
        spy.wait(lambda *_: commands.counts["unanswered"] == 1)
        assert not commands.pending
        lines = [r.getMessage() for r in caplog.records if "no answer" in r.getMessage()]
        assert len(lines) == 1 and req["id"] in lines[0]

        spy.publish("flickboard/bridge/flickboard-bridge/status", "offline", retain=True)  # the board's own bridge
        spy.wait(lambda *_: runner.boards.bridge_online("t1") is False)
        spy.publish("homeassistant/flickboard/t1/command", "undo")
        spy.wait(lambda *_: commands.counts["ignored"] == 1)
        assert len(spy.on("flickboard/t1/input")) == 1 and commands.counts["sent"] == 1
        ignored = [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()]
        assert len(ignored) == 1 and "its bridge flickboard-bridge is offline" in ignored[0], ignored
    finally:
        runner.stop()
        spy.publish("flickboard/t1/scoreboard", b"", retain=True)
        spy.publish("flickboard/bridge/flickboard-bridge/status", b"", retain=True)
        spy.close()


def test_the_command_with_ha_commands_enters_a_press_and_counts_it(broker: Broker, tmp_path: Path) -> None:
    """As an operator runs it: `--homeassistant --ha-commands` announces the buttons, a press (published as Home
    Assistant does) is entered by the real bridge, and the count is printed when the command stops."""
    spy = Spy(broker, ["homeassistant/#", "flickboard/#"])
    running = bridge_for(broker, tmp_path)
    enter(running, "shot zone")
    cmd = [sys.executable, "-m", "flickboard.displays.integrations", "--mqtt", broker.url, "--homeassistant"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = tmp_path / "integrations.log"  # its log, read while it runs
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [*cmd, "--ha-commands", "--board", "t1", "--client-id", "cli-ha"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=env,
        )
    try:
        wait_device(spy, "homeassistant", "t1", buttons=True)
        mark = spy.mark()
        spy.publish("homeassistant/flickboard/t1/command", "undo")
        req = json.loads(spy.wait(lambda t, _p: t == "flickboard/t1/input", since=mark)[1])
        assert answer_to(spy, req["id"], mark)["ok"] is True
        deadline = time.monotonic() + 15
        while "undo on board t1: entered as" not in log.read_text():  # the command reads the answer too
            assert time.monotonic() < deadline, f"the command did not read the bridge's answer:\n{log.read_text()}"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        running.stop()
        spy.close()
    err = log.read_text()
    assert proc.returncode == 0, (out, err)
    assert "buttons on" in out and "presses: 1 entered, 0 refused, 0 unanswered, 0 ignored" in out, out
    assert "undo on board t1: entered as entry 2" in err and "Traceback" not in err


def test_awtrix_buttons_undo_and_confirm_through_the_bridge(broker: Broker, tmp_path: Path) -> None:
    """AWTRIX 3 publishes each button's state on `<prefix>/stats/buttonLeft` / `buttonRight` (`1` pressed, `0`
    released; the AWTRIX 3 MQTT API, https://blueforcer.github.io/awtrix3/#/api). With the buttons on for one board,
    holding left for the hold time undoes through the real bridge (an entry with an id, answered on the result
    topic); a short press is the clock's own navigation and enters nothing; holding right asks for `confirm`, which
    the bridge refuses when no twenty is provisional (counted). Off by default: no subscription at all. (A fake
    clock measures the hold.)"""
    now = [100.0]
    spy = Spy(broker, ["flickboard/#"])
    running = bridge_for(broker, tmp_path)
    kept: list[Commands] = []

    def make_commands(r: IntegrationRunner) -> Commands:
        kept.append(Commands(r.publish, r.boards, r.only))
        return kept[-1]

    def make_clock(r: IntegrationRunner) -> Awtrix:
        return Awtrix(r.publish, r.boards, "clock7", clock=lambda: now[0], commands=kept[0], board="t1", hold=1.0)

    runner = runner_for(broker, make_commands, make_clock, boards=("t1",))
    commands = kept[0]
    try:
        assert "clock7/stats/buttonLeft" in runner.topics() and "clock7/stats/buttonSelect" not in runner.topics()
        spy.wait(lambda *_: "t1" in runner.boards.docs)
        enter(running, "shot zone")
        spy.wait(lambda t, p: t == "flickboard/t1/scoreboard" and json.loads(p)["entries"] == 1)

        spy.publish("clock7/stats/buttonLeft", "1")  # a short press: the clock moves to the next app, nothing else
        spy.publish("clock7/stats/buttonLeft", "0")
        time.sleep(0.3)
        assert spy.on("flickboard/t1/input") == [] and commands.counts["sent"] == 0

        mark = spy.mark()
        spy.publish("clock7/stats/buttonLeft", "1")
        spy.wait(lambda *_: "buttonLeft" in runner.integrations[1].pressed)  # type: ignore[attr-defined]
        now[0] += 1.5
        spy.publish("clock7/stats/buttonLeft", "0")
        req = json.loads(spy.wait(lambda t, _p: t == "flickboard/t1/input", since=mark)[1])
        assert req["line"] == "undo" and req["id"].startswith("awtrix-")
        assert answer_to(spy, req["id"], mark)["ok"] is True
        doc = running.bridge.scoreboard("t1")
        assert doc["score"]["current"]["shots_played"] == 0 and doc["score"]["current"]["to_shoot"] == "Ana"

        mark = spy.mark()
        spy.publish("clock7/stats/buttonRight", "1")
        spy.wait(lambda *_: "buttonRight" in runner.integrations[1].pressed)  # type: ignore[attr-defined]
        now[0] += 1.5
        spy.publish("clock7/stats/buttonRight", "0")
        req = json.loads(spy.wait(lambda t, _p: t == "flickboard/t1/input", since=mark)[1])
        assert req["line"] == "confirm" and answer_to(spy, req["id"], mark)["ok"] is False
        spy.wait(lambda *_: commands.counts["refused"] == 1)
        assert commands.counts["entered"] == 1 and commands.counts["ignored"] == 0
    finally:
        runner.stop()
        running.stop()
        spy.close()
    assert Awtrix(lambda *_: None, runner.boards, "c").topics() == []  # no commands given: buttons off


# ---------------------------------------------------------------- WLED


STATE_KEYS = {"on": bool, "bri": int, "tt": int, "ps": int, "psave": int, "ib": bool, "sb": bool, "seg": list}
SEG_KEYS = {"id", "fx", "sx", "ix", "pal", "col"}


def check_wled_state(state: dict[str, Any]) -> None:
    """A JSON API state object, by the JSON API's tables: known keys, types and ranges."""
    assert set(state) <= set(STATE_KEYS), set(state) - set(STATE_KEYS)
    for k, v in state.items():
        assert type(v) is STATE_KEYS[k], (k, v)
    assert 0 <= state.get("bri", 0) <= 255 and 0 <= state.get("tt", 0) <= 65535
    assert all(1 <= state[k] <= 250 for k in ("ps", "psave") if k in state)
    for seg in state.get("seg", []):
        assert set(seg) <= SEG_KEYS and all(0 <= seg[k] <= 255 for k in ("fx", "sx", "ix", "pal"))
        assert 1 <= len(seg["col"]) <= 3 and all(len(c) == 3 and all(0 <= x <= 255 for x in c) for c in seg["col"])


def test_wled_flashes_the_scoring_side_then_restores_the_saved_look(broker: Broker, tmp_path: Path) -> None:
    """On a twenty, JSON API state objects on the lamp's `<topic>/api` (https://kno.wled.ge/interfaces/mqtt/,
    https://kno.wled.ge/interfaces/json-api/): save the look in the scratch preset (`psave`), the effect in the
    scoring side's colour, and the saved preset back (`ps`) when the time is up. A second twenty during the
    effect flashes again and restarts the timer, without saving the flash as the look."""
    spy = Spy(broker, ["lamp/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(broker, lambda r: Wled(r.publish, r.boards, "lamp", seconds=1.0))
    try:
        enter(running, "shot zone", "shot call in", "shot zone", "shot call in")  # two twenties for Ben
        spy.wait(lambda _t, p: "ps" in json.loads(p))
        time.sleep(0.3)
        states = [json.loads(p) for p in spy.on("lamp/api")]
        for s in states:
            check_wled_state(s)
        assert states[0] == {"psave": SCRATCH_SLOT, "ib": True, "sb": True}
        flashes = states[1:3]
        assert [sorted(f) for f in flashes] == [["bri", "on", "seg", "tt"]] * 2
        assert all(f["on"] is True and f["tt"] == 0 for f in flashes)
        assert flashes[0]["seg"][0]["col"][0] == list(SIDE_COLORS[1])  # Ben's side: yellow
        assert states[3:] == [{"ps": SCRATCH_SLOT}]
        assert spy.on("lamp") == [] and all(t == "lamp/api" for t, _, _ in spy.msgs)
    finally:
        runner.stop()
        running.stop()
        spy.close()


def test_wled_returns_to_the_given_preset_without_saving(broker: Broker, tmp_path: Path) -> None:
    """With a preset to return to, nothing is saved: the effect, then `{"ps": N}` (state objects as in
    https://kno.wled.ge/interfaces/json-api/)."""
    spy = Spy(broker, ["lamp/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(broker, lambda r: Wled(r.publish, r.boards, "lamp", seconds=0.3, preset=7, fx=1))
    try:
        enter(running, "shot zone", "shot call in")
        spy.wait(lambda _t, p: "ps" in json.loads(p))
        states = [json.loads(p) for p in spy.on("lamp/api")]
        for s in states:
            check_wled_state(s)
        assert len(states) == 2 and states[0]["seg"][0]["fx"] == 1 and states[1] == {"ps": 7}
    finally:
        runner.stop()
        running.stop()
        spy.close()


def test_wled_timer_restarts_on_each_twenty_and_a_stop_reverts_at_once(broker: Broker) -> None:
    """The way back comes `seconds` after the last twenty, not the first (a fake clock drives the timer), and a
    clean stop in the middle of an effect sends it at once."""
    now = [500.0]
    spy = Spy(broker, ["lamp/#"])
    runner = runner_for(
        broker, lambda r: Wled(r.publish, r.boards, "lamp", seconds=10, clock=lambda: now[0]), clock=lambda: now[0]
    )
    twenty = {"format": "flickboard-moment", "board": "t1", "entry": 2, "type": "twenty", "side": "Ben"}
    try:
        spy.publish("flickboard/t1/events", json.dumps(twenty))
        spy.wait(lambda _t, p: "seg" in json.loads(p))
        now[0] += 8
        spy.publish("flickboard/t1/events", json.dumps({**twenty, "entry": 4}))
        spy.wait(lambda _t, _p: len(spy.on("lamp/api")) == 3)
        now[0] += 8  # 16 s after the first, 8 after the last
        time.sleep(0.4)
        assert len(spy.on("lamp/api")) == 3
        now[0] += 3
        spy.wait(lambda _t, p: json.loads(p) == {"ps": SCRATCH_SLOT})
        spy.publish("flickboard/t1/events", json.dumps({**twenty, "entry": 6}))
        spy.wait(lambda _t, _p: len(spy.on("lamp/api")) == 6)  # saved again (the look is back), flashing
    finally:
        runner.stop()
    spy.wait(lambda _t, _p: len(spy.on("lamp/api")) == 7)
    states = [json.loads(p) for p in spy.on("lamp/api")]
    assert [next(iter(s)) for s in states] == ["psave", "on", "on", "ps", "psave", "on", "ps"]
    assert states[1]["seg"][0]["col"][0] == [255, 255, 255]  # no scoreboard seen: the side is unknown, white
    spy.close()


# ---------------------------------------------------------------- robustness and the command line


class Moments(Integration):
    """Keeps the moments the runner hands over."""

    name = "moments"

    def __init__(self, publish: Any, boards: Any) -> None:
        super().__init__(publish, boards)
        self.seen: list[dict[str, Any]] = []

    def on_moment(self, board: str, moment: dict[str, Any]) -> None:
        self.seen.append(moment)


def test_a_retained_moment_or_an_oversized_message_is_not_read(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    """A moment is news once: a retained one (someone's old message kept by the broker) would ring the clock again
    at every restart. A message longer than any scoreboard is refused before it is read (issue 19). Both are
    counted and logged in one line; the live moment after them still arrives."""
    caplog.set_level(logging.WARNING, logger="flickboard.integrations")
    moment = {"format": "flickboard-moment", "type": "twenty", "entry": 3}
    spy = Spy(broker, ["flickboard/t1/result"])
    spy.publish("flickboard/t1/events", json.dumps(moment), retain=True)
    spy.publish("flickboard/t1/scoreboard", b"x" * (MAX_DOCUMENT + 1), retain=True)
    kept: list[Moments] = []
    runner = runner_for(broker, lambda r: kept.append(Moments(r.publish, r.boards)) or kept[-1])  # type: ignore[func-returns-value]
    try:
        spy.publish("flickboard/t1/events", json.dumps({**moment, "entry": 4}))
        deadline = time.monotonic() + 10
        while not kept[0].seen and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [m["entry"] for m in kept[0].seen] == [4]
        assert runner.bad == 2 and runner.failures == 0
        lines = [r.getMessage() for r in caplog.records if "unreadable" in r.getMessage()]
        assert any("retained moment" in x for x in lines) and any(f"longer than {MAX_DOCUMENT}" in x for x in lines)
    finally:
        runner.stop()
        spy.publish("flickboard/t1/events", b"", retain=True)
        spy.publish("flickboard/t1/scoreboard", b"", retain=True)
        spy.close()


def test_garbled_documents_are_counted_and_logged_in_one_line(broker: Broker, caplog: pytest.LogCaptureFixture) -> None:
    """A garbled scoreboard, another format or version, a moment that is not one, a status that is neither
    `online` nor `offline`, another board's document: each is counted and logged in one line, and the runner
    goes on (the good scoreboard after them still reaches the clock). `--board` keeps other boards out."""
    spy = Spy(broker, ["clock3/#"])
    caplog.set_level(logging.WARNING, logger="flickboard.integrations")
    runner = runner_for(broker, lambda r: Awtrix(r.publish, r.boards, "clock3"), boards=("t1", "t2"))
    sample = json.loads((ROOT / "docs" / "mqtt.md").read_text().split("```json\n", 1)[1].split("```", 1)[0])
    bad = [
        ("flickboard/t1/scoreboard", b'{"format": "flickboard-scoreboard", "version": 1, "score": {"sides": [tr'),
        ("flickboard/t1/scoreboard", b"\xff\xfe not utf-8"),
        ("flickboard/t1/scoreboard", b"[1, 2]"),
        ("flickboard/t1/scoreboard", json.dumps({**sample, "version": 2}).encode()),
        ("flickboard/t1/scoreboard", json.dumps({**sample, "format": "other"}).encode()),
        ("flickboard/t1/scoreboard", json.dumps({**sample, "board": "t2"}).encode()),
        ("flickboard/t1/scoreboard", json.dumps({**sample, "board": "t1", "score": {"sides": "x"}}).encode()),
        ("flickboard/t1/events", b"twenty!"),
        ("flickboard/t1/events", json.dumps({"type": "twenty"}).encode()),
        ("flickboard/t1/status", b"maybe"),
    ]
    try:
        for topic, payload in bad:
            spy.publish(topic, payload)
        spy.publish("flickboard/t3/scoreboard", json.dumps({**sample, "board": "t3"}))  # not followed
        spy.publish("flickboard/t2/scoreboard", json.dumps({**sample, "board": "t2"}))
        spy.wait(lambda t, _p: t == "clock3/custom/flickboard_t2")
        time.sleep(0.2)
        assert runner.bad == len(bad) and runner.failures == 0
        assert spy.on("clock3/custom/flickboard_t3") == [] and spy.on("clock3/custom/flickboard_t1") == []
        lines = [r.getMessage() for r in caplog.records if "unreadable" in r.getMessage()]
        assert len(lines) == len(bad) and all("\n" not in line for line in lines)
        assert not any(r.exc_info for r in caplog.records)
        assert any("version 2" in line for line in lines) and any("not JSON" in line for line in lines)
    finally:
        runner.stop()
        spy.close()


def test_after_a_broker_restart_it_subscribes_and_announces_again(broker: Broker, tmp_path: Path) -> None:
    """A broker restarted without persistence has forgotten the subscriptions and the retained discovery configs:
    on the reconnect the runner subscribes again and publishes the configs again, and the clock gets the app
    from the scoreboard the bridge republishes."""
    spy = Spy(broker, ["homeassistant/#", "clock5/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(
        broker, lambda r: HomeAssistant(r.publish, r.boards), lambda r: Awtrix(r.publish, r.boards, "clock5")
    )
    try:
        wait_device(spy, "homeassistant", "t1")
        spy.wait(lambda t, _p: t == "clock5/custom/flickboard_t1")
        broker.restart()
        mark = spy.mark()
        wait_device(spy, "homeassistant", "t1", since=mark)
        spy.wait(lambda t, _p: t == "clock5/custom/flickboard_t1", timeout=10, since=mark)
        assert runner.connects == 2
        late = Spy(broker, ["homeassistant/#"])
        late.wait(lambda t, p: t == device_topic("homeassistant", "t1") and bool(p))
        late.close()
    finally:
        runner.stop()
        running.stop()
        spy.close()


def parse(*argv: str) -> Any:
    import argparse

    p = argparse.ArgumentParser()
    configure_parser(p)
    return p.parse_args(list(argv))


def test_options_are_checked_with_one_line_errors() -> None:
    """Nothing enabled, a bad URL, board, topic or number: refused before connecting, in one line."""
    url = "mqtt://127.0.0.1:1"
    cases = [
        (["--mqtt", url], "enable at least one"),
        (["--mqtt", "http://x", "--wled", "w"], "--mqtt"),
        (["--mqtt", url, "--wled", "w", "--board", "a/b"], "--board"),
        (["--mqtt", url, "--wled", "w", "--board", "bridge"], "--board"),
        (["--mqtt", url, "--awtrix", "clock/#"], "--awtrix"),
        (["--mqtt", url, "--wled", "/lamp"], "--wled"),
        (["--mqtt", url, "--homeassistant", "ha+"], "--homeassistant"),
        (["--mqtt", url, "--wled", "w", "--wled-preset", "0"], "--wled-preset"),
        (["--mqtt", url, "--awtrix", "c", "--awtrix-lifetime", "1"], "--awtrix-lifetime"),
        (["--mqtt", "mqtts://127.0.0.1", "--wled", "w"], "CA file"),
        (["--mqtt", url, "--ca-file", "ca.pem", "--wled", "w"], "mqtts"),
        (["--mqtt", url, "--wled", "w", "--ha-commands"], "--ha-commands"),
        (["--mqtt", url, "--wled", "w", "--retract", "t1"], "--retract"),
        (["--mqtt", url, "--homeassistant", "--retract", "t/1"], "--retract"),
        (["--mqtt", url, "--awtrix", "c", "--awtrix-buttons"], "--awtrix-buttons"),
        (["--mqtt", url, "--awtrix", "c", "--awtrix-buttons", "--board", "t1", "--board", "t2"], "--awtrix-buttons"),
        (["--mqtt", url, "--wled", "w", "--awtrix-buttons", "--board", "t1"], "--awtrix-buttons"),
    ]
    for argv, words in cases:
        with pytest.raises(UserError) as e:
            build_runner(parse(*argv))
        assert words in str(e.value) and "\n" not in str(e.value), (argv, str(e.value))
    runner = build_runner(parse("--mqtt", url, "--homeassistant", "--awtrix", "c1", "--wled", "w1", "--board", "t1"))
    assert [i.name for i in runner.integrations] == ["commands", "homeassistant", "awtrix", "wled"]
    assert runner.integrations[1].prefix == "homeassistant"  # type: ignore[attr-defined]
    assert "c1/stats/buttonLeft" not in runner.topics()  # the clock's buttons are off by default
    assert "homeassistant/status" in runner.topics() and "flickboard/t1/events" in runner.topics()
    assert "flickboard/+/scoreboard" not in runner.topics()


def test_the_command_runs_until_sigterm_and_says_errors_in_one_line(broker: Broker) -> None:
    """As a user runs it (`python -m flickboard.displays.integrations`, the same options as `flickboard
    integrations`): a bad option is one line on stderr and exit 2, no traceback; a real run publishes the app for the
    retained scoreboard and stops cleanly on SIGTERM."""
    cmd = [sys.executable, "-m", "flickboard.displays.integrations"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([*cmd, "--mqtt", broker.url], capture_output=True, text=True, env=env, timeout=30)
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0, p.stderr
    assert p.stderr.startswith("flickboard: nothing to do") and "Traceback" not in p.stderr

    spy = Spy(broker, ["clock4/#"])
    sample = json.loads((ROOT / "docs" / "mqtt.md").read_text().split("```json\n", 1)[1].split("```", 1)[0])
    spy.publish("flickboard/table-3/scoreboard", json.dumps(sample), retain=True)
    proc = subprocess.Popen(
        [*cmd, "--mqtt", broker.url, "--awtrix", "clock4", "--board", "table-3", "--client-id", "cli-test"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        spy.wait(lambda t, _p: t == "clock4/custom/flickboard_table-3", timeout=15)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        spy.close()
    assert proc.returncode == 0, (out, err)
    assert "AWTRIX 3 (clock4)" in out and "stopped (0 unreadable messages, 0 failures)" in out
    assert "Traceback" not in err


def test_a_refused_password_stops_the_command_with_one_line(tmp_path: Path) -> None:
    """A broker that refuses the credentials will refuse them again: the command says so in one line (exit 2)
    instead of retrying for ever."""
    pw = tmp_path / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(pw), "scorer", "right"], check=True, capture_output=True)
    wrong = tmp_path / "password"
    wrong.write_text("wrong\n")
    wrong.chmod(0o600)
    with mosquitto(f"allow_anonymous false\npassword_file {pw}\n") as b:
        url = f"mqtt://scorer@127.0.0.1:{b.port}"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "flickboard.displays.integrations", "--mqtt", url, "--password-file", str(wrong)]
        p = subprocess.run(
            [*cmd, "--wled", "lamp"],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
        )
    err = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(err) == 1 and err[0].startswith("flickboard: the broker"), p.stderr
    assert "refused the connection" in err[0] and "scorer:***@" in err[0]
    assert "wrong" not in p.stderr and "Traceback" not in p.stderr


def test_docs_integrations_names_everything_published() -> None:
    """docs/integrations.md is the contract for whoever sets these up: every discovery key and entity key, every
    event type and trigger, every AWTRIX and WLED key the code sends must appear there (in backticks)."""
    doc = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    sample = json.loads((ROOT / "docs" / "mqtt.md").read_text().split("```json\n", 1)[1].split("```", 1)[0])
    sent: list[tuple[str, bytes, bool]] = []

    def publish(topic: str, payload: bytes, retain: bool) -> None:
        sent.append((topic, payload, retain))

    from flickboard.displays.integrations.common import Boards

    boards = Boards(docs={"table-3": sample})
    words: set[str] = set()
    commands = Commands(publish, boards)
    config = HomeAssistant(publish, boards, commands=commands, buttons=True).config("table-3")
    words |= {*config, *config["dev"], *config["o"]}
    for key, component in config["cmps"].items():
        words |= {key, *component, *component.get("event_types", []), component["p"]}
        words |= {k for a in component.get("availability", []) for k in a}
        words |= {component[k] for k in ("state_class", "device_class", "unit_of_measurement") if k in component}
    aw = Awtrix(publish, boards, "clock")
    words |= set(aw.app(sample))
    for m in ({"type": "twenty", "side": "Ben"}, {"type": "game-over", "game": 1}, {"type": "match-over"}):
        words |= set(aw.notification("table-3", {"entry": 1, **m}) or {})
    lamp = Wled(publish, boards, "lamp")
    lamp.flash((1, 2, 3))
    lamp.revert()
    for _, payload, _ in sent:
        state = json.loads(payload)
        words |= set(state) | {k for seg in state.get("seg", []) for k in seg}
    missing = sorted(w for w in words if f"`{w}`" not in doc)
    assert not missing, f"add these to docs/integrations.md: {missing}"


# ---------------------------------------------------------------- Québec Pichenottes and Flicochet

QUEBEC_MANCHE = ["shot", "color red", "shot red", "shot c5", "shot" + " red" * 11, "shot none"]  # Ben: 12 + c5


def test_quebec_and_flicochet_documents_drive_every_integration(broker: Broker, tmp_path: Path) -> None:
    """The other two games through a real bridge: Home Assistant's templates render their documents (no twenties,
    no games won: None), AWTRIX shows the points to the target and notifies a manche, a round and the game, and
    WLED flashes the side that won a manche or round. Seed 003 règle 12 (the manche: 1 per opponent dame left) and
    seed 004 PLAYING 3 (a round: the discs closer than the opponent's closest)."""
    spy = Spy(broker, ["homeassistant/#", "flickboard/#", "clock/#", "lamp/#"])
    running = bridge_for(broker, tmp_path)
    runner = runner_for(
        broker,
        lambda r: HomeAssistant(r.publish, r.boards),
        lambda r: Awtrix(r.publish, r.boards, "clock", lifetime=60),
        lambda r: Wled(r.publish, r.boards, "lamp", seconds=0.3),
    )
    app_topic = "clock/custom/flickboard_t1"
    try:
        cmps = wait_device(spy, "homeassistant", "t1")["cmps"]
        sensor = {k: cmps[k] for k in SENSOR_KEYS}

        def values(doc: dict[str, Any]) -> dict[str, str]:
            return {k: render(c["value_template"], json.dumps(doc).encode()) for k, c in sensor.items()}

        mark = spy.mark()
        running.bridge.new_game("t1", "officiel", ["Ana", "Ben"], None, "31")
        enter(running, *QUEBEC_MANCHE)
        spy.wait(lambda t, p: t == "flickboard/t1/scoreboard" and json.loads(p)["entries"] == 6, since=mark)
        quebec = [d for d in docs(spy) if d["score"].get("game") == "pichenottes-quebec"]
        first, last = values(quebec[0]), values(quebec[-1])
        assert first == {
            **{f"points_{n}": "0" for n in (1, 2)},
            **{f"{k}_{n}": "None" for n in (1, 2) for k in ("games_won", "last_game", "twenties")},
            "game": "1",  # the manche
            "state": "in progress",
        }
        attributes = sensor["state"]["json_attributes_template"]
        assert json.loads(render(attributes, json.dumps(quebec[0]).encode())) == {"shooter": "Ana", "shot_kind": None}
        assert (last["points_2"], last["last_game_2"], last["last_game_1"], last["game"]) == ("17", "17", "0", "2")
        assert json.loads(render(attributes, json.dumps(quebec[-1]).encode()))["shooter"] == "Ben"  # règle 7
        _, note, _ = spy.wait(lambda t, p: t == "clock/notify" and b"MANCHE" in p, since=mark)
        assert json.loads(note) == {"text": "MANCHE 1: Ana 0-17 Ben", "color": YELLOW, "duration": 6}
        app = json.loads(spy.wait(lambda t, p: t == app_topic and b'"17"' in p, since=mark)[1])
        assert check_app(app) == "0:17" and app["progress"] == 55 and app["progressC"] == YELLOW  # 17 of 31
        flash = spy.wait(lambda t, p: t == "lamp/api" and b"seg" in p, since=mark)[1]
        assert json.loads(flash)["seg"][0]["col"][0] == list(SIDE_COLORS[1])  # Ben's manche
        event = cmps["moment"]
        manche = next(p for p in spy.on("flickboard/t1/events", mark) if json.loads(p)["type"] == "manche-over")
        assert json.loads(render(event["value_template"], manche))["event_type"] == "manche-over"

        mark = spy.mark()
        running.bridge.new_game("t1", "flicochet", ["Cy", "Di"], None, "2")
        enter(running, *["flick"] * 12, "order R R W")  # red's two discs are closest: 2 points, the game
        names = device_topic("homeassistant", "t1")
        spy.wait(lambda t, p: t == names and json.loads(p)["cmps"]["points_1"]["name"] == "red points", since=mark)
        spy.wait(lambda t, p: t == "flickboard/t1/scoreboard" and json.loads(p)["score"]["over"], since=mark)
        end = values(docs(spy)[-1])
        assert (end["points_1"], end["last_game_1"], end["state"], end["twenties_1"]) == (
            "2",
            "2",
            "over: red wins",
            "None",
        )
        spy.wait(lambda _t, _p: len(spy.on("clock/notify", mark)) >= 2, since=mark)
        notes = [json.loads(p) for p in spy.on("clock/notify", mark)]
        for n in notes:
            check_notification(n)
        red = hex_color((255, 40, 40))
        assert notes[0] == {"text": "ROUND 1: red 2-0 white", "color": red, "duration": 6}
        assert notes[1] == {"text": "red WINS 2-0", "color": red, "rainbow": True, "duration": 10}
        final = json.loads(spy.wait(lambda t, p: t == app_topic and b"wins" in p, since=mark)[1])
        assert check_app(final) == "red wins 2:0" and final["text"][1]["c"] == red[1:]
        spy.wait(lambda t, p: t == "lamp/api" and json.loads(p).get("ps") == SCRATCH_SLOT, since=mark)
        states = [json.loads(p) for p in spy.on("lamp/api", mark)]
        for s in states:
            check_wled_state(s)
        assert [s["seg"][0]["col"][0] for s in states if "seg" in s][:2] == [[255, 40, 40]] * 2  # round, game
    finally:
        runner.stop()
        running.stop()
        spy.close()
    assert runner.bad == 0 and runner.failures == 0
