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

import logging
import re
from typing import Any

from flickboard.config import is_board_id, is_bridge_id
from flickboard.displays.integrations.commands import LINES, Commands
from flickboard.displays.integrations.common import Boards, Integration, Publish, version
from flickboard.mqtt import BRIDGE_STATUS, EVENTS, SCOREBOARD, STATUS, board_topic, bridge_topic

log = logging.getLogger("flickboard.integrations")

DEFAULT_PREFIX = "homeassistant"
MOMENT_EVENTS = (
    *("twenty", "ditch", "ditch-pass", "edge", "penalty", "game-over", "match-over", "review"),
    *("manche-over", "compteuse", "foul"),  # Québec Pichenottes
    *("round-over", "jack-off"),  # Flicochet
)
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
# button key -> (name, icon, the scoreboard test that says the press can apply now, or None: whenever the bridge is up)
BUTTONS = {
    "confirm": (
        "Confirm twenty",
        "mdi:check-decagram",
        f"{_CURRENT} and {_CURRENT}.provisional_twenties is defined and {_CURRENT}.provisional_twenties",
    ),
    "undo": ("Undo", "mdi:undo", None),
    "reviewed": ("Review done", "mdi:clipboard-check", "value_json.needs_review or value_json.checks"),
}
assert set(BUTTONS) == set(LINES)


def _when(test: str, then: str, otherwise: str = "None") -> str:
    """A template that renders `then` when `test` is true, else `otherwise` ("None": the state is unknown)."""
    return f"{{% if {test} %}}{then}{{% else %}}{otherwise}{{% endif %}}"


def _value(expr: str) -> str:
    return "{{ " + expr + " }}"


def _first(*choices: tuple[str, str]) -> str:
    """The first (key, expression) whose key the document has: each game names its things its own way (the
    game in progress is Pichenotte's `game`, Québec's `manche`, Flicochet's `round`), so a template reads the one
    that is there and renders None when none is."""
    parts = [f"{{% {'if' if k == 0 else 'elif'} {test} %}}{_value(expr)}" for k, (test, expr) in enumerate(choices)]
    return "".join(parts) + "{% else %}None{% endif %}"


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
EVENT_TEMPLATE = (
    "{% if value_json.type in [" + ", ".join(f"'{t}'" for t in MOMENT_EVENTS) + "] %}"
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
    ) -> None:
        super().__init__(publish, boards)
        self.prefix = prefix
        self.commands = commands  # where presses go (and are counted when ignored)
        self.buttons = buttons and commands is not None  # --ha-commands: announce the buttons, act on presses
        self.announced: dict[str, tuple[list[str], str]] = {}  # board -> the side names and bridge its config has
        self.cleared: set[str] = set()  # boards whose per-entity configs of earlier versions were cleared this run
        self.announcements = 0  # whole announcements of one board (for tests and the log)
        self.retractions = 0

    def describe(self) -> str:
        return f"Home Assistant (discovery prefix {self.prefix}; buttons {'on' if self.buttons else 'off'})"

    @property
    def birth_topic(self) -> str:
        return f"{self.prefix}/status"

    def device_topic(self, board: str) -> str:
        return f"{self.prefix}/device/flickboard_{board}/config"

    def command_topic(self, board: str) -> str:
        return f"{self.prefix}/flickboard/{board}/command"

    def legacy_topics(self, board: str) -> list[str]:
        return [f"{self.prefix}/{component}/flickboard_{board}/{key}/config" for component, key in LEGACY]

    def topics(self) -> list[str]:
        return [self.birth_topic, self.command_topic("+")]

    def on_connect(self) -> None:
        self.announce_all()

    def on_board(self, board: str) -> None:
        self.announce(board)

    def on_scoreboard(self, board: str, doc: dict[str, Any]) -> None:
        if self.announced.get(board) != self._announced_as(board):  # new side names, or another bridge keeps it
            self.announce(board)

    def on_removed(self, board: str) -> None:
        self.retract(board)

    def on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if topic == self.birth_topic:
            if payload.strip() == b"online":
                self.announce_all()
            return
        parts = topic.split("/")
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

    def announce_all(self) -> None:
        for board in self.boards.known():
            self.announce(board)

    def announce(self, board: str) -> None:
        if board not in self.cleared:  # the per-entity configs of earlier versions first: no duplicates
            for topic in self.legacy_topics(board):
                self._publish(topic, b"", True)
            self.cleared.add(board)
        self.send(self.device_topic(board), self.config(board), retain=True)
        self.announced[board] = self._announced_as(board)
        self.announcements += 1

    def retract(self, board: str) -> None:
        """The board's device leaves Home Assistant: its config (and any per-entity one of earlier versions) is
        cleared with an empty retained payload."""
        if not is_board_id(board):
            return
        self._publish(self.device_topic(board), b"", True)
        for topic in self.legacy_topics(board):
            self._publish(topic, b"", True)
        self.announced.pop(board, None)
        self.cleared.add(board)
        self.retractions += 1
        log.info("homeassistant: board %s retracted (%s cleared)", board, self.device_topic(board))

    def _announced_as(self, board: str) -> tuple[list[str], str]:
        return self.boards.sides(board) or [], self.bridge_status_topic(board)

    def bridge_status_topic(self, board: str) -> str:
        """The status topic of the bridge that keeps the board (its latest scoreboard's `bridge`); the deprecated
        shared one while no scoreboard names a bridge."""
        owner = self.boards.owner(board)
        return bridge_topic(owner, STATUS) if owner is not None and is_bridge_id(owner) else BRIDGE_STATUS

    # ---------------------------------------------------------------- the config

    def device(self, board: str) -> dict[str, Any]:
        return {
            "ids": [f"flickboard_{board}"],
            "name": f"Flickboard {board}",
            "mf": "Flickboard",
            "mdl": "Flickboard scoring board",
            "sw": version(),
        }

    @staticmethod
    def origin() -> dict[str, Any]:
        return {"name": ORIGIN, "sw": version()}

    def config(self, board: str) -> dict[str, Any]:
        """The board's device-based discovery config: `dev`, `o`, `qos` and `cmps` (component key -> its config,
        each with its platform `p`; every entity with a `unique_id`)."""
        sides = self.boards.sides(board) or ["Side 1", "Side 2"]
        scoreboard = board_topic(board, SCOREBOARD)
        status = self.bridge_status_topic(board)
        bridge = {"topic": status, "payload_available": "online", "payload_not_available": "offline"}
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
            entity("sensor", key, name, state_topic=scoreboard, value_template=template, **fields)

        def diagnostic(key: str, name: str, template: str, **fields: Any) -> None:
            sensor(key, name, template, entity_category="diagnostic", **fields)

        games, rounds = "value_json.score.games", "value_json.score.rounds"
        for i in (0, 1):
            n, side = i + 1, sides[i]
            # Match numbers: they grow through a match and start again at the next one (or go down by a penalty):
            # a measurement, so Home Assistant keeps statistics without reading a reset as a loss.
            sensor(
                f"points_{n}",
                f"{side} points",
                _value(f"value_json.score.totals[{i}]"),
                unit_of_measurement="points",
                state_class="measurement",
                icon="mdi:scoreboard",
            )
            games_won = "value_json.score.games_won"
            sensor(
                f"games_won_{n}",
                f"{side} games won",
                _first((f"{games_won} is defined", f"{games_won}[{i}]")),
                unit_of_measurement="games",
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
                unit_of_measurement="points",
                state_class="measurement",
                icon="mdi:scoreboard-outline",
            )
            tw = _cur("twenties")
            sensor(
                f"twenties_{n}",
                f"{side} twenties",
                _first((tw[0], f"{tw[1]}[{i}]")),
                unit_of_measurement="twenties",
                state_class="measurement",
                icon="mdi:bullseye-arrow",
            )
        sensor("game", "Game", _first(_cur("game"), _cur("manche"), _cur("round")), icon="mdi:counter")
        shooter = _first(_cur("to_shoot"), _cur("to_play"), _cur("to_flick"))
        sensor("shooter", "Shooter", shooter, icon="mdi:account-arrow-right")
        sensor("shot_kind", "Shot kind", _first(_cur("shot_kind")), icon="mdi:target")
        sensor("state", "State", STATE_TEMPLATE, icon="mdi:information-outline")

        # The board's link, as the bridge sees it (the scoreboard's board_link), and the scorekeeping's health.
        entity(
            "binary_sensor",
            "board",
            "Board",
            state_topic=scoreboard,
            value_template=_when(f"{_LINK}.online", "ON", "OFF"),
            device_class="connectivity",
            entity_category="diagnostic",
        )
        entity(
            "binary_sensor",
            "events_missing",
            "Board events missing",
            state_topic=scoreboard,
            value_template=_when(f"{_LINK}.in_sync is defined", _when(f"not {_LINK}.in_sync", "ON", "OFF")),
            device_class="problem",
            entity_category="diagnostic",
        )
        entity(  # a board resending what was counted already (a re-flashed board reusing its boot id)
            "binary_sensor",
            "only_repeats",
            "Board sending only repeats",
            state_topic=scoreboard,
            value_template=_when(f"{_LINK}.only_duplicates is defined", _when(f"{_LINK}.only_duplicates", "ON", "OFF")),
            device_class="problem",
            entity_category="diagnostic",
        )
        diagnostic(
            "events_behind",
            "Board events not received",
            _first((f"{_LINK}.high_water is defined", f"{_LINK}.high_water - {_LINK}.processed")),
            unit_of_measurement="events",
            state_class="measurement",
            icon="mdi:timer-sand",
        )
        # the board numbers its messages from 1 at every boot: a counter that starts again, total_increasing
        diagnostic(
            "board_messages",
            "Board messages this boot",
            _first((f"{_LINK}.processed is defined", f"{_LINK}.processed")),
            unit_of_measurement="messages",
            state_class="total_increasing",
            icon="mdi:counter",
        )
        diagnostic("boot", "Board boot", _first((f"{_LINK}.boot is defined", f"{_LINK}.boot")), icon="mdi:restart")
        diagnostic("link", "Board link", _first((f"{_LINK}.via", f"{_LINK}.via")), icon="mdi:usb")
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
            icon="mdi:timer-outline",
        )
        diagnostic(
            "outbox",
            "Board outbox",
            _first((_HAS_HB, f"{_HB}.q")),
            unit_of_measurement="messages",
            state_class="measurement",
            icon="mdi:tray-arrow-up",
        )
        # counters since the board's boot: they start again at 0 when it restarts, total_increasing
        diagnostic(
            "drops",
            "Board messages dropped",
            _first((_HAS_HB, f"{_HB}.drop")),
            unit_of_measurement="messages",
            state_class="total_increasing",
            icon="mdi:delete-alert",
        )
        diagnostic(
            "reconnects",
            "Board reconnects",
            _first((_HAS_HB, f"{_HB}.rc")),
            unit_of_measurement="reconnects",
            state_class="total_increasing",
            icon="mdi:wifi-refresh",
        )
        diagnostic(
            "queued",
            "Sensor events waiting",
            _value("value_json.queued"),
            unit_of_measurement="events",
            state_class="measurement",
            icon="mdi:tray-full",
        )
        # entries the rules refused in this match: counts up, starts again with the next match
        diagnostic(
            "refused",
            "Refused entries",
            _value("value_json.score.rejected_inputs"),
            unit_of_measurement="entries",
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
                "value_template": _value("value_json.type"),
                "payload": moment,
                "type": kind,
                "subtype": subtype,
            }
        if self.buttons:
            for key, (name, icon, applies) in BUTTONS.items():
                availability = [bridge]
                if applies is not None:  # greyed out while the bridge would refuse the press
                    availability.append(
                        {**bridge, "topic": scoreboard, "value_template": _when(applies, "online", "offline")}
                    )
                entity(
                    "button",
                    key,
                    name,
                    command_topic=self.command_topic(board),
                    payload_press=key,
                    availability=availability,
                    availability_mode="all",
                    icon=icon,
                )
        return {"dev": self.device(board), "o": self.origin(), "qos": 1, "cmps": cmps}
