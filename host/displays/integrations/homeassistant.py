"""Home Assistant MQTT discovery: one device per board, "Flickboard <board>", announced with one device-based
discovery config (Home Assistant 2024.11+): `<prefix>/device/flickboard_<board>/config`, with `dev`, `o` and the
components in `cmps`.

The entities read the bridge's own topics: the sensors point their `state_topic` at the retained
`flickboard/<board>/scoreboard` and pick their value out with a `value_template`; the event entity and the
device triggers read `flickboard/<board>/events`. This module publishes the discovery config (retained, QoS 1),
so Home Assistant stays up to date from the bridge even while this process is down; it publishes it again on
every connect, for a board seen for the first time, when a board's side names change (they are in the entity
names), and when Home Assistant announces itself (`online` on `<prefix>/status`). Before a board's first config
of a run it clears (empty retained payload) the per-entity configs earlier versions published, so an upgrade
leaves no duplicate entities; and a board whose retained scoreboard is cleared is retracted (its config cleared).

With commands on (`--ha-commands`), three buttons (confirm the twenty, undo, review done) publish their press on
`<prefix>/flickboard/<board>/command`; each press becomes a manual entry through the bridge (commands.py). With
commands off there are no buttons, and a press that comes anyway is ignored, counted and logged.

Every entity is available while the bridge that keeps the board says `online` on its own status topic,
`flickboard/bridge/<bridge>/status` (its last will says `offline`): when that bridge stops or is killed, the board's
retained scoreboard is no longer live, and only the boards of that bridge go unavailable. The bridge is the one the
board's latest scoreboard names (`bridge`); the config is published again when that changes. Until a scoreboard
names one (a board seen only through its own status, or kept by a bridge older than per-bridge topics) it is the
deprecated shared `flickboard/bridge/status`. Whether the board itself is up is the "Board" connectivity sensor,
from the scoreboard's `board_link.online`, which the bridge takes from a Wi-Fi board's retained
`flickboard/<board>/status` and from the port for a USB board (which publishes no status topic of its own).
Topics, payloads and the reasons: docs/integrations.md.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from flickboard.config import is_board_id, is_bridge_id
from flickboard.displays.integrations.commands import LINES, Commands
from flickboard.displays.integrations.common import Boards, Integration, Publish, version
from flickboard.mqtt import BRIDGE_STATUS, EVENTS, SCOREBOARD, STATUS, board_topic, bridge_topic

log = logging.getLogger("flickboard.integrations")

DEFAULT_PREFIX = "homeassistant"
# The moments the event entity fires on: what a person in the room would call news (each is a line in Home Assistant's
# logbook). The sensors' own details (a ditch pass, a puck on edge, every ditch) are left to the device triggers and
# to the scoreboard, or the logbook of one match would be a page long.
MOMENT_EVENTS = (
    *("twenty", "penalty", "game-over", "match-over", "review"),
    *("manche-over", "foul"),  # Québec Pichenottes
    "round-over",  # Flicochet
)
# What became of a press of one of the device's buttons (the "Button press" event entity): the bridge entered it, the
# bridge refused it (its reason in `message`), no answer came in time, or it was not sent (its reason in `message`).
PRESS_EVENTS = ("entered", "refused", "unanswered", "not_sent")
SETTLE = 1.0  # s after a connect (or after asking for a board's old per-entity topics) for the retained copies to come
# device trigger key -> (moment type, HA trigger type, HA trigger subtype): shown as "<subtype> <type>"
TRIGGERS = {
    "twenty": ("twenty", "scored", "twenty"),
    "ditch": ("ditch", "ditched", "puck"),
    "game_over": ("game-over", "over", "game"),
    "match_over": ("match-over", "over", "match"),
    "manche_over": ("manche-over", "over", "manche"),
    "round_over": ("round-over", "over", "round"),
}

_CURRENT = "value_json.score.current"
_LINK = "value_json.board_link"
_HB = f"{_LINK}.heartbeat"
_HAS_HB = f"{_HB} is defined and {_HB}"  # null before the board's first heartbeat; absent from older bridges
ORIGIN = "flickboard"
SIDE_SENSORS = ("points", "games_won", "last_game", "twenties")
# What earlier versions published, one topic per entity (`<prefix>/<component>/flickboard_<board>/<key>/config`):
# cleared before the first device config of a run, and on retraction.
LEGACY = (
    *(("sensor", f"{k}_{n}") for n in (1, 2) for k in SIDE_SENSORS),
    *(("sensor", k) for k in ("game", "shooter", "shot_kind", "state")),
    ("binary_sensor", "board"),
    ("event", "moment"),
    *(("device_automation", k) for k in ("twenty", "ditch", "game_over", "match_over", "manche_over", "round_over")),
)
# button key -> (name, icon)
BUTTONS = {
    "confirm": ("Confirm twenty", "mdi:check-decagram"),
    "undo": ("Undo", "mdi:undo"),
    "reviewed": ("Review done", "mdi:clipboard-check"),
}
assert set(BUTTONS) == set(LINES)


def _when(test: str, then: str, otherwise: str = "None") -> str:
    """A template that renders `then` when `test` is true, else `otherwise` ("None": the state is unknown)."""
    return f"{{% if {test} %}}{then}{{% else %}}{otherwise}{{% endif %}}"


def _value(expr: str) -> str:
    return "{{ " + expr + " }}"


def _first(*choices: tuple[str, str], json: bool = False) -> str:
    """The first (key, expression) whose key the document has: each game names its things its own way (the
    game in progress is Pichenotte's `game`, Québec's `manche`, Flicochet's `round`), so a template reads the one
    that is there and renders None when none is (`json`: each value as JSON, and null)."""
    parts = [
        f"{{% {'if' if k == 0 else 'elif'} {test} %}}{_value(f'{expr} | tojson' if json else expr)}"
        for k, (test, expr) in enumerate(choices)
    ]
    return "".join(parts) + ("{% else %}null{% endif %}" if json else "{% else %}None{% endif %}")


def _readable(template: str) -> str:
    """`template` on a scoreboard, or None (unknown) when the payload is not one: an empty payload (the retained
    scoreboard cleared to remove the board) has no `value_json`, and Home Assistant would log an error per entity."""
    return _when("value_json is defined and value_json.score is defined", template)


def _cur(key: str) -> tuple[str, str]:
    return f"{_CURRENT} and {_CURRENT}.{key} is defined", f"{_CURRENT}.{key}"


STATE_TEMPLATE = (
    "{% if value_json.score.over %}"
    "{% if value_json.score.winner %}over: {{ value_json.score.winner }} wins{% else %}over{% endif %}"
    "{% elif value_json.needs_review %}needs review"
    "{% elif value_json.waiting %}waiting for an entry"
    "{% elif value_json.score.questions %}question"
    "{% elif value_json.score.shootout is defined and value_json.score.shootout %}shoot-out"
    "{% else %}in progress{% endif %}"
)
# The State sensor's attributes: whose shot it is and what kind, which change at every shot
ATTRIBUTES_TEMPLATE = (
    "{% if value_json is defined and value_json.score is defined %}"
    + '{"shooter": '
    + _first(_cur("to_shoot"), _cur("to_play"), _cur("to_flick"), json=True)
    + ', "shot_kind": '
    + _first(_cur("shot_kind"), json=True)
    + "}{% else %}{}{% endif %}"
)
EVENT_TEMPLATE = (
    "{% if value_json is defined and value_json.type in [" + ", ".join(f"'{t}'" for t in MOMENT_EVENTS) + "] %}"
    '{"event_type": "{{ value_json.type }}", "moment": {{ value }}}'
    "{% endif %}"
)


def entity_slug(board: str) -> str:
    """A board id as it can appear in an entity id (lower case, `_` for `-`)."""
    return re.sub(r"[^a-z0-9_]", "_", board.lower())


class HomeAssistant(Integration):
    name = "homeassistant"

    def __init__(
        self,
        publish: Publish,
        boards: Boards,
        prefix: str = DEFAULT_PREFIX,
        *,
        commands: Commands | None = None,
        buttons: bool = False,
        client_id: str = "flickboard-integrations",
        web: str | None = None,
    ) -> None:
        super().__init__(publish, boards)
        self.prefix = prefix
        self.commands = commands  # where presses go (and are counted when ignored)
        self.buttons = buttons and commands is not None  # --ha-commands: announce the buttons, act on presses
        self.client_id = client_id
        self.web = web.rstrip("/") if web else None  # flickboard web's address: each device's configuration_url
        # The device configs as the broker holds them (our subscription to `<prefix>/device/+/config` brings the
        # retained ones on every connect, and our own publications back): a board's config is published only when
        # the broker's copy is missing or differs from what it should be.
        self.retained: dict[str, dict[str, Any]] = {}
        self.legacy: dict[str, set[str]] = {}  # board -> its per-entity configs of earlier versions, still retained
        self.asked: dict[str, float] = {}  # board -> when its per-entity topics were subscribed to (clock of tick)
        self.pending: set[str] = set()  # boards whose config is to be checked at the next tick
        self.announced: dict[str, tuple[list[str], str]] = {}  # board -> the side names and bridge its config has
        self._connected: float | None = None  # when this connection's retained copies were asked for
        self._connect_seen = False
        self._now = 0.0
        self.announcements = 0  # configs published (for tests and the log)
        self.migrations = 0  # boards moved from per-entity configs to the device config
        self.retractions = 0
        if commands is not None and self.buttons:
            commands.listeners.append(self._pressed)

    def describe(self) -> str:
        return f"Home Assistant (discovery prefix {self.prefix}; buttons {'on' if self.buttons else 'off'})"

    @property
    def birth_topic(self) -> str:
        return f"{self.prefix}/status"

    @property
    def status_topic(self) -> str:
        """This program's own status (`online`, and `offline` as its last will): the buttons and the press events
        are available only while it runs, since nothing else can take a press."""
        return f"{self.prefix}/flickboard/{self.client_id}/status"

    def device_topic(self, board: str) -> str:
        return f"{self.prefix}/device/flickboard_{board}/config"

    def command_topic(self, board: str) -> str:
        return f"{self.prefix}/flickboard/{board}/command"

    def press_topic(self, board: str) -> str:
        return f"{self.prefix}/flickboard/{board}/press"

    def legacy_topics(self, board: str) -> list[str]:
        return [f"{self.prefix}/{component}/flickboard_{board}/{key}/config" for component, key in LEGACY]

    def topics(self) -> list[str]:
        legacy = [t for board in self.asked for t in self.legacy_topics(board)]
        return [self.birth_topic, self.command_topic("+"), f"{self.prefix}/device/+/config", *legacy]

    def will(self) -> tuple[str, bytes] | None:
        return (self.status_topic, b"offline") if self.buttons else None

    def on_connect(self) -> None:
        # A new connection: what the broker holds comes again with the subscriptions (a broker that restarted
        # without persistence holds nothing, and then every config is published again).
        self.retained.clear()
        self.legacy.clear()
        self.asked.clear()
        self._connect_seen = True
        self.pending.update(self.boards.known())
        if self.buttons:
            self._publish(self.status_topic, b"online", True)

    def on_scoreboard(self, board: str, doc: dict[str, Any]) -> None:
        if self.announced.get(board) != self._announced_as(board):  # new, new side names, or another bridge keeps it
            self.pending.add(board)

    def on_removed(self, board: str) -> None:
        self.retract(board)

    def tick(self, now: float) -> None:
        self._now = now
        if self._connect_seen:
            self._connect_seen, self._connected = False, now
        if self._connected is None or now < self._connected + SETTLE:
            return
        for board in sorted(self.pending):
            if self._settle(board, now):
                self.pending.discard(board)

    def close(self) -> None:
        if self.buttons:
            self._publish(self.status_topic, b"offline", True)

    def on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if topic == self.birth_topic:
            if payload.strip() == b"online":  # Home Assistant (re)started: its configs must be on the broker
                self.pending.update(self.boards.known())
            return
        parts = topic.split("/")
        if topic.endswith("/config"):
            self._config_seen(parts, payload)
            return
        board = parts[-2] if len(parts) >= 2 else ""
        command = payload.decode("utf-8", "replace").strip()[:32]
        if self.commands is None or not payload:
            return  # an empty payload clears a retained press: nothing was pressed
        if retained:  # a press kept by the broker would press again at every restart
            self.commands.ignore("homeassistant", board, command, "a retained press (the broker's copy of an old one)")
        elif not self.buttons:
            self.commands.ignore("homeassistant", board, command, "commands are off (start with --ha-commands)")
        else:
            self.commands.press("homeassistant", board, command)

    def _config_seen(self, parts: list[str], payload: bytes) -> None:
        """A discovery config on the broker: one of our device configs, or a per-entity config of an earlier
        version (for the boards whose old topics were asked for)."""
        node = parts[-2] if parts[-3:-2] == ["device"] else parts[-3]
        if not node.startswith("flickboard_"):
            return
        board = node.removeprefix("flickboard_")
        if parts[-3:-2] == ["device"]:
            try:
                doc = json.loads(payload) if payload else None
            except ValueError:
                doc = None
            if isinstance(doc, dict):
                self.retained[board] = doc
            else:
                self.retained.pop(board, None)
            return
        topic = "/".join(parts)
        if payload:
            self.legacy.setdefault(board, set()).add(topic)
        else:
            self.legacy.get(board, set()).discard(topic)

    def _settle(self, board: str, now: float) -> bool:
        """Publish the board's config if the broker's copy is missing or differs; True when nothing is left to do."""
        if board not in self.boards.docs:
            return True  # announced from its first scoreboard only: before it, its names and its bridge are unknown
        want = self.config(board)
        self.announced[board] = self._announced_as(board)
        if self.retained.get(board) == want:
            return True
        if board not in self.retained:
            if board not in self.asked:  # a board without a device config: is it on the topics of earlier versions?
                self.asked[board] = now
                self.subscribe(self.legacy_topics(board))
                return False
            if now < self.asked[board] + SETTLE:
                return False
        old = sorted(self.legacy.get(board, ()))
        for topic in old:  # Home Assistant's own migration: the entities keep their registry entries and history
            self._publish(topic, b'{"migrate_discovery":true}', True)
        self.retained[board] = want
        self.announcements += 1  # before it goes out: whoever sees the config on the broker sees it counted
        self.send(self.device_topic(board), want, retain=True)
        if old:
            self.migrations += 1
            log.info("homeassistant: board %s moved from %d per-entity configs to its device config", board, len(old))
        return True

    def _pressed(self, source: str, board: str, command: str, outcome: str, message: str) -> None:
        """What became of a press of one of this device's buttons, as the "Button press" event."""
        if source != "homeassistant" or not is_board_id(board) or board not in self.boards.docs:
            return
        event = {"event_type": outcome, "button": command, "message": message}
        self.send(self.press_topic(board), event)

    def retract(self, board: str) -> None:
        """The board's device leaves Home Assistant: its config is cleared with an empty retained payload, and so
        are the per-entity configs of earlier versions that are still on the broker."""
        if not is_board_id(board):
            return
        if board in self.retained:  # only what is there: an empty config for no device makes Home Assistant warn
            self._publish(self.device_topic(board), b"", True)
        for topic in sorted(self.legacy.pop(board, ())):
            self._publish(topic, b"", True)
        self.retained.pop(board, None)
        self.announced.pop(board, None)
        self.pending.discard(board)
        self.retractions += 1
        log.info("homeassistant: board %s retracted (%s cleared)", board, self.device_topic(board))

    def _announced_as(self, board: str) -> tuple[list[str], str]:
        return self.boards.sides(board) or [], self.bridge_status_topic(board)

    def bridge_status_topic(self, board: str) -> str:
        """The status topic of the bridge that keeps the board (its latest scoreboard's `bridge`); the deprecated
        shared one for a scoreboard of a bridge older than per-bridge topics."""
        owner = self.boards.owner(board)
        return bridge_topic(owner, STATUS) if owner is not None and is_bridge_id(owner) else BRIDGE_STATUS

    # ---------------------------------------------------------------- the config

    def device(self, board: str) -> dict[str, Any]:
        dev = {
            "ids": [f"flickboard_{board}"],
            "name": f"Flickboard {board}",
            "mf": "Flickboard",
            "mdl": "Flickboard scoring board",
            "sw": version(),
        }
        if self.web is not None:  # the board's operator page of `flickboard web` (docs/displays.md)
            dev["cu"] = f"{self.web}/enter/{board}"
        return dev

    @staticmethod
    def origin() -> dict[str, Any]:
        return {"name": ORIGIN, "sw": version()}

    def config(self, board: str) -> dict[str, Any]:
        """The board's device-based discovery config: `dev`, `o`, `qos` and `cmps` (component key -> its config,
        each with its platform `p`; every entity with a `unique_id`). It needs the board's scoreboard (the side names,
        the bridge that keeps it): a config without them would be replaced at once, and Home Assistant may apply the
        second to only the components it has finished setting up."""
        sides = self.boards.sides(board)
        if sides is None:
            raise ValueError(f"board {board}: no scoreboard yet, nothing to announce")
        scoreboard = board_topic(board, SCOREBOARD)
        bridge = {
            "topic": self.bridge_status_topic(board),
            "payload_available": "online",
            "payload_not_available": "offline",
        }
        mine = {"topic": self.status_topic, "payload_available": "online", "payload_not_available": "offline"}
        cmps: dict[str, dict[str, Any]] = {}

        def entity(platform: str, key: str, name: str, **fields: Any) -> None:
            cmps[key] = {
                "p": platform,
                "name": name,
                "unique_id": f"flickboard_{board}_{key}",
                "default_entity_id": f"{platform}.flickboard_{entity_slug(board)}_{key}",
                "availability": [bridge],
                **fields,
            }

        def sensor(key: str, name: str, template: str, **fields: Any) -> None:
            entity("sensor", key, name, state_topic=scoreboard, value_template=_readable(template), **fields)

        def diagnostic(key: str, name: str, template: str, **fields: Any) -> None:
            sensor(key, name, template, entity_category="diagnostic", **fields)

        # Counts have no unit: Home Assistant would print "1 twenties"; the name says what is counted. A state class
        # is what gives them long-term statistics.
        games, rounds = "value_json.score.games", "value_json.score.rounds"
        for i in (0, 1):
            n, side = i + 1, sides[i]
            # Match numbers: they grow through a match and start again at the next one (or go down by a penalty):
            # a measurement, so Home Assistant keeps statistics without reading a reset as a loss.
            sensor(
                f"points_{n}",
                f"{side} points",
                _value(f"value_json.score.totals[{i}]"),
                state_class="measurement",
                icon="mdi:scoreboard",
            )
            won = f"value_json.score.games_won[{i}]"
            sensor(  # a half for a tied game: 1.5 stays 1.5, and 1.0 is shown 1
                f"games_won_{n}",
                f"{side} games won",
                _when(
                    "value_json.score.games_won is defined",
                    _when(f"{won} == {won} | int", _value(f"{won} | int"), _value(won)),
                ),
                state_class="measurement",
                icon="mdi:trophy",
            )
            sensor(
                f"last_game_{n}",
                f"{side} last game",
                _first(
                    (f"{games} is defined and {games}", f"{games}[-1].points[{i}]"),
                    (f"{rounds} is defined and {rounds} and {rounds}[-1].points", f"{rounds}[-1].points[{i}]"),
                ),
                state_class="measurement",
                icon="mdi:scoreboard-outline",
            )
            tw = _cur("twenties")
            sensor(
                f"twenties_{n}",
                f"{side} twenties",
                _first((tw[0], f"{tw[1]}[{i}]")),
                state_class="measurement",
                icon="mdi:bullseye-arrow",
            )
        sensor("game", "Game", _first(_cur("game"), _cur("manche"), _cur("round")), icon="mdi:counter")
        # Whose shot and which kind change at every shot: attributes of State, so the logbook (which lists every
        # change of a text sensor's state, never of an attribute) is not one line per shot.
        sensor(
            "state",
            "State",
            STATE_TEMPLATE,
            icon="mdi:information-outline",
            json_attributes_topic=scoreboard,
            json_attributes_template=ATTRIBUTES_TEMPLATE,
        )

        # The board's link, as the bridge sees it (the scoreboard's board_link), and the scorekeeping's health.
        entity(  # null (the bridge has not heard of the board yet): unknown, not "disconnected"
            "binary_sensor",
            "board",
            "Board",
            state_topic=scoreboard,
            value_template=_readable(_when(f"{_LINK}.online is not none", _when(f"{_LINK}.online", "ON", "OFF"))),
            device_class="connectivity",
            entity_category="diagnostic",
        )
        entity(
            "binary_sensor",
            "events_missing",
            "Board events missing",
            state_topic=scoreboard,
            value_template=_readable(_when(f"{_LINK}.in_sync is defined", _when(f"not {_LINK}.in_sync", "ON", "OFF"))),
            device_class="problem",
            entity_category="diagnostic",
        )
        entity(  # a board resending what was counted already (a re-flashed board reusing its boot id)
            "binary_sensor",
            "only_repeats",
            "Board sending only repeats",
            state_topic=scoreboard,
            value_template=_readable(
                _when(f"{_LINK}.only_duplicates is defined", _when(f"{_LINK}.only_duplicates", "ON", "OFF"))
            ),
            device_class="problem",
            entity_category="diagnostic",
        )
        diagnostic(
            "events_behind",
            "Board events not received",
            _first((f"{_LINK}.high_water is defined", f"{_LINK}.high_water - {_LINK}.processed")),
            state_class="measurement",
            icon="mdi:timer-sand",
        )
        # the board numbers its messages from 1 at every boot: a counter that starts again, total_increasing
        diagnostic(
            "board_messages",
            "Board messages this boot",
            _first((f"{_LINK}.processed is defined", f"{_LINK}.processed")),
            state_class="total_increasing",
            icon="mdi:counter",
        )
        diagnostic("boot", "Board boot", _first((f"{_LINK}.boot is defined", f"{_LINK}.boot")), icon="mdi:restart")
        diagnostic("link", "Board link", _first((f"{_LINK}.via", f"{_LINK}.via")), icon="mdi:connection")
        # The board's own numbers, from its latest heartbeat (board_link.heartbeat; docs/protocol.md, heartbeat).
        diagnostic(
            "signal",
            "Board Wi-Fi signal",
            _first((_HAS_HB, f"{_HB}.rssi")),  # None (unknown): a USB board, or Wi-Fi not associated
            device_class="signal_strength",
            unit_of_measurement="dBm",
            state_class="measurement",
        )
        diagnostic(  # seconds since the board started; at most HEARTBEAT_EVERY (30 s) old
            "uptime",
            "Board uptime",
            _first((_HAS_HB, f"{_HB}.up // 1000")),
            device_class="duration",
            unit_of_measurement="s",
            suggested_display_precision=0,
            icon="mdi:timer-outline",
        )
        diagnostic(
            "outbox",
            "Board outbox",
            _first((_HAS_HB, f"{_HB}.q")),
            state_class="measurement",
            icon="mdi:tray-arrow-up",
        )
        # counters since the board's boot: they start again at 0 when it restarts, total_increasing
        diagnostic(
            "drops",
            "Board messages dropped",
            _first((_HAS_HB, f"{_HB}.drop")),
            state_class="total_increasing",
            icon="mdi:delete-alert",
        )
        diagnostic(
            "reconnects",
            "Board reconnects",
            _first((_HAS_HB, f"{_HB}.rc")),
            state_class="total_increasing",
            icon="mdi:wifi-refresh",
        )
        diagnostic(
            "queued",
            "Sensor events waiting",
            _value("value_json.queued"),
            state_class="measurement",
            icon="mdi:tray-full",
        )
        # entries the rules refused in this match: counts up, starts again with the next match
        diagnostic(
            "refused",
            "Refused entries",
            _value("value_json.score.rejected_inputs"),
            state_class="total_increasing",
            icon="mdi:cancel",
        )
        entity(
            "event",
            "moment",
            "Moment",
            state_topic=board_topic(board, EVENTS),
            value_template=EVENT_TEMPLATE,
            event_types=list(MOMENT_EVENTS),
            icon="mdi:bullseye",
        )
        for key, (moment, kind, subtype) in TRIGGERS.items():
            cmps[key] = {
                "p": "device_automation",
                "automation_type": "trigger",
                "topic": board_topic(board, EVENTS),
                "value_template": _when("value_json is defined", _value("value_json.type"), ""),
                "payload": moment,
                "type": kind,
                "subtype": subtype,
            }
        if self.buttons:
            # Available while the bridge and this program run, not only when the press would apply: each change of
            # availability is a line in Home Assistant's logbook (two a shot), and a press that does not apply is
            # refused by the bridge with its reason, shown by the "Button press" event.
            for key, (name, icon) in BUTTONS.items():
                entity(
                    "button",
                    key,
                    name,
                    command_topic=self.command_topic(board),
                    payload_press=key,
                    availability=[bridge, mine],
                    availability_mode="all",
                    icon=icon,
                )
            entity(  # what became of each press: entered, or why not (the bridge's reason)
                "event",
                "press",
                "Button press",
                state_topic=self.press_topic(board),
                event_types=list(PRESS_EVENTS),
                availability=[mine],
                icon="mdi:gesture-tap-button",
            )
        return {"dev": self.device(board), "o": self.origin(), "qos": 1, "cmps": cmps}
