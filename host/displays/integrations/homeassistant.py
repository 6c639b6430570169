"""Home Assistant MQTT discovery: one device per board, "Flickboard <board>".

The entities read the bridge's own topics: the sensors point their `state_topic` at the retained
`flickboard/<board>/scoreboard` and pick their value out with a `value_template`; the event entity and the
device triggers read `flickboard/<board>/events`. This module only publishes the discovery configs (retained,
QoS 1), so Home Assistant stays up to date from the bridge even while this process is down; it publishes them
again on every connect, for a board seen for the first time, when a board's side names change (they are in
the entity names), and when Home Assistant announces itself (`online` on `<prefix>/status`).

Every entity is available while the bridge says `online` on `flickboard/bridge/status`: when the bridge stops,
the retained scoreboard is no longer live. Whether the board itself is up is the "Board" connectivity sensor,
from the scoreboard's `board_link.online`, which the bridge takes from a Wi-Fi board's retained
`flickboard/<board>/status` and from the port for a USB board (which publishes no status topic of its own).
Topics, payloads and the reasons: docs/integrations.md.
"""

from __future__ import annotations

import re
from typing import Any

from host.displays.integrations.common import Boards, Integration, Publish, version
from host.mqtt import BRIDGE_STATUS, EVENTS, SCOREBOARD, board_topic

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

    def __init__(self, publish: Publish, boards: Boards, prefix: str = DEFAULT_PREFIX) -> None:
        super().__init__(publish, boards)
        self.prefix = prefix
        self.announced: dict[str, list[str]] = {}  # board -> the side names its configs carry
        self.announcements = 0  # whole announcements of one board (for tests and the log)

    def describe(self) -> str:
        return f"Home Assistant (discovery prefix {self.prefix})"

    @property
    def birth_topic(self) -> str:
        return f"{self.prefix}/status"

    def topics(self) -> list[str]:
        return [self.birth_topic]

    def on_connect(self) -> None:
        self.announce_all()

    def on_board(self, board: str) -> None:
        self.announce(board)

    def on_scoreboard(self, board: str, doc: dict[str, Any]) -> None:
        if self.announced.get(board) != self.boards.sides(board):
            self.announce(board)

    def on_message(self, topic: str, payload: bytes) -> None:
        if topic == self.birth_topic and payload.strip() == b"online":
            self.announce_all()

    def announce_all(self) -> None:
        for board in self.boards.known():
            self.announce(board)

    def announce(self, board: str) -> None:
        for topic, config in self.configs(board).items():
            self.send(topic, config, retain=True)
        self.announced[board] = self.boards.sides(board) or []
        self.announcements += 1

    # ---------------------------------------------------------------- the configs

    def device(self, board: str) -> dict[str, Any]:
        return {
            "identifiers": [f"flickboard_{board}"],
            "name": f"Flickboard {board}",
            "manufacturer": "Flickboard",
            "model": "Flickboard scoring board",
            "sw_version": version(),
        }

    @staticmethod
    def origin() -> dict[str, Any]:
        return {"name": "flickboard integrations", "sw_version": version()}

    def configs(self, board: str) -> dict[str, dict[str, Any]]:
        """Every discovery config of the board: topic -> payload."""
        sides = self.boards.sides(board) or ["Side 1", "Side 2"]
        scoreboard = board_topic(board, SCOREBOARD)
        out: dict[str, dict[str, Any]] = {}

        def entity(component: str, key: str, name: str, **fields: Any) -> None:
            config: dict[str, Any] = {
                "name": name,
                "unique_id": f"flickboard_{board}_{key}",
                "default_entity_id": f"{component}.flickboard_{entity_slug(board)}_{key}",
                "qos": 1,
                "availability": [
                    {"topic": BRIDGE_STATUS, "payload_available": "online", "payload_not_available": "offline"}
                ],
                "device": self.device(board),
                "origin": self.origin(),
            }
            config.update(fields)
            out[f"{self.prefix}/{component}/flickboard_{board}/{key}/config"] = config

        def sensor(key: str, name: str, template: str, **fields: Any) -> None:
            entity("sensor", key, name, state_topic=scoreboard, value_template=template, **fields)

        for i in (0, 1):
            n = i + 1
            side = sides[i]
            sensor(
                f"points_{n}",
                f"{side} points",
                _value(f"value_json.score.totals[{i}]"),
                unit_of_measurement="points",
                icon="mdi:scoreboard",
            )
            games_won = "value_json.score.games_won"
            sensor(
                f"games_won_{n}",
                f"{side} games won",
                _first((f"{games_won} is defined", f"{games_won}[{i}]")),
                icon="mdi:trophy",
            )
            games, rounds = "value_json.score.games", "value_json.score.rounds"
            sensor(
                f"last_game_{n}",
                f"{side} last game",
                _first(
                    (f"{games} is defined and {games}", f"{games}[-1].points[{i}]"),
                    (f"{rounds} is defined and {rounds} and {rounds}[-1].points", f"{rounds}[-1].points[{i}]"),
                ),
                unit_of_measurement="points",
                icon="mdi:scoreboard-outline",
            )
            tw = _cur("twenties")
            sensor(f"twenties_{n}", f"{side} twenties", _first((tw[0], f"{tw[1]}[{i}]")), icon="mdi:bullseye-arrow")
        sensor("game", "Game", _first(_cur("game"), _cur("manche"), _cur("round")), icon="mdi:counter")
        shooter = _first(_cur("to_shoot"), _cur("to_play"), _cur("to_flick"))
        sensor("shooter", "Shooter", shooter, icon="mdi:account-arrow-right")
        sensor("shot_kind", "Shot kind", _first(_cur("shot_kind")), icon="mdi:target")
        sensor("state", "State", STATE_TEMPLATE, icon="mdi:information-outline")
        entity(
            "binary_sensor",
            "board",
            "Board",
            state_topic=scoreboard,
            value_template=_when("value_json.board_link.online", "ON", "OFF"),
            device_class="connectivity",
            entity_category="diagnostic",
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
            out[f"{self.prefix}/device_automation/flickboard_{board}/{key}/config"] = {
                "automation_type": "trigger",
                "topic": board_topic(board, EVENTS),
                "value_template": _value("value_json.type"),
                "payload": moment,
                "type": kind,
                "subtype": subtype,
                "qos": 1,
                "device": self.device(board),
                "origin": self.origin(),
            }
        return out
