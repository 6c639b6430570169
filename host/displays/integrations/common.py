"""What every integration shares: the base class the runner drives, the runner's view of the boards, reading a
scoreboard document or a moment (docs/mqtt.md) with a one-line reason when it cannot be read, and the side
colours (the same cyan and yellow as the terminal's big view, host/displays/terminal.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from flickboard.core.scoreboard import MOMENTS_FORMAT, SCOREBOARD_FORMAT, SCOREBOARD_VERSION
from flickboard.mqtt import BridgeWatch

# (topic, payload, retain); always QoS 1. The runner's publish: thread-safe, queued by paho while offline.
Publish = Callable[[str, bytes, bool], None]

SIDE_COLORS = ((0, 255, 255), (255, 255, 0))  # side 1 cyan, side 2 yellow: told apart by most colour vision
WHITE = (255, 255, 255)
TEAM_COLORS = ((255, 40, 40), WHITE)  # Flicochet's teams are red and white: shown in their own colours
GAMES = ("pichenotte", "pichenottes-quebec", "flicochet")


def hex_color(rgb: tuple[int, int, int], hash_sign: bool = True) -> str:
    return ("#" if hash_sign else "") + "".join(f"{c:02X}" for c in rgb)


def version() -> str:
    """The installed flickboard's version (the `sw_version` shown in Home Assistant)."""
    try:
        return metadata.version("flickboard")
    except metadata.PackageNotFoundError:
        return "unknown"


class BadDocument(ValueError):
    """A scoreboard or moment this version cannot read; the message is one line saying why."""


def _load(payload: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadDocument("not UTF-8") from None
    except ValueError:
        raise BadDocument("not JSON") from None
    if not isinstance(doc, dict):
        raise BadDocument(f"a JSON {type(doc).__name__}, not an object")
    return doc


def _pair(v: object) -> bool:
    number = (int, float)
    return isinstance(v, list) and len(v) == 2 and all(isinstance(x, number) and not isinstance(x, bool) for x in v)


def read_scoreboard(payload: bytes) -> dict[str, Any]:
    """A scoreboard document of version 1, checked for the keys the integrations read. Raises BadDocument."""
    doc = _load(payload)
    if doc.get("format") != SCOREBOARD_FORMAT:
        raise BadDocument(f"format is {doc.get('format')!r}, not {SCOREBOARD_FORMAT!r}")
    v = doc.get("version")
    if v != SCOREBOARD_VERSION:
        raise BadDocument(f"version {v!r}; this flickboard reads version {SCOREBOARD_VERSION}")
    score = doc.get("score")
    if not isinstance(score, dict):
        raise BadDocument("no score object")
    sides = score.get("sides")
    if not (isinstance(sides, list) and len(sides) == 2 and all(isinstance(s, dict) for s in sides)):
        raise BadDocument("score.sides is not two sides")
    if not all(isinstance(s.get("name"), str) and isinstance(s.get("players"), list) for s in sides):
        raise BadDocument("a side without a name or players")
    game = score.get("game", "pichenotte")
    if game not in GAMES:
        raise BadDocument(f"score.game {str(game)[:40]!r} is not a game this flickboard knows")
    if not _pair(score.get("totals")) or not isinstance(score.get("over"), bool):
        raise BadDocument("score.totals is not a pair of numbers, or score.over is missing")
    current = score.get("current")
    if game == "pichenotte":
        if not _pair(score.get("games_won")) or not isinstance(score.get("games"), list):
            raise BadDocument("score.games_won is not a pair of numbers, or score.games is missing")
        if current is not None and not (isinstance(current, dict) and _pair(current.get("twenties"))):
            raise BadDocument("score.current is not a game in progress")
    else:  # Québec Pichenottes (manches) and Flicochet (rounds), played to a target
        target = score.get("target")
        if not isinstance(score.get("rounds"), list) or not isinstance(target, int) or isinstance(target, bool):
            raise BadDocument("score.rounds or score.target is missing")
        if current is not None and not isinstance(current, dict):
            raise BadDocument("score.current is not a round in progress")
    if not isinstance(doc.get("needs_review"), bool) or not isinstance(doc.get("board_link"), dict):
        raise BadDocument("needs_review or board_link is missing")
    return doc


def read_moment(payload: bytes) -> dict[str, Any]:
    """One scoring moment (docs/mqtt.md, "Scoring moments"). Raises BadDocument."""
    m = _load(payload)
    if m.get("format") != MOMENTS_FORMAT:
        raise BadDocument(f"format is {m.get('format')!r}, not {MOMENTS_FORMAT!r}")
    if not isinstance(m.get("type"), str) or not isinstance(m.get("entry"), int):
        raise BadDocument("no type or entry")
    return m


@dataclass
class Boards:
    """What the runner knows: each board's latest readable scoreboard and its own status, and every bridge's status
    (`watch`, fed every message of `BridgeWatch.TOPICS`)."""

    docs: dict[str, dict[str, Any]] = field(default_factory=dict)
    online: dict[str, bool] = field(default_factory=dict)
    watch: BridgeWatch = field(default_factory=BridgeWatch)

    def known(self) -> list[str]:
        return sorted(set(self.docs) | set(self.online))

    def owner(self, board: str) -> str | None:
        """The id of the bridge that keeps the board's latest scoreboard (None: no scoreboard yet, or one from a
        bridge older than per-bridge topics)."""
        doc = self.docs.get(board)
        owner = None if doc is None else doc.get("bridge")
        return owner if isinstance(owner, str) else None

    def bridge_online(self, board: str) -> bool | None:
        """Whether the bridge that keeps the board is online: its own status (BridgeWatch.owner_online of the
        board's latest scoreboard); None: no scoreboard yet, or that bridge's status not heard."""
        doc = self.docs.get(board)
        return None if doc is None else self.watch.owner_online(doc)

    def sides(self, board: str) -> list[str] | None:
        doc = self.docs.get(board)
        return None if doc is None else [s["name"] for s in doc["score"]["sides"]]

    def side_index(self, board: str, name: object) -> int | None:
        sides = self.sides(board) or []
        return sides.index(name) if name in sides else None

    def colors(self, board: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """The two sides' colours: cyan and yellow, or Flicochet's red and white teams."""
        doc = self.docs.get(board)
        return TEAM_COLORS if doc is not None and doc["score"].get("game") == "flicochet" else SIDE_COLORS

    def side_color(self, board: str, name: object) -> tuple[int, int, int]:
        i = self.side_index(board, name)
        return WHITE if i is None else self.colors(board)[i]

    def round_winner(self, board: str, points: object) -> str | None:
        """The side with more points in a manche or round (None: a tie, or no points)."""
        sides = self.sides(board)
        if sides is None or not isinstance(points, list) or not _pair(points):
            return None
        a, b = float(points[0]), float(points[1])
        return None if a == b else sides[0 if a > b else 1]


class Integration:
    """One integration. The runner calls these under one lock, from paho's thread (messages) or its ticker
    thread (`tick`); an exception is counted and logged by the runner in one line, never fatal."""

    name = "integration"

    def __init__(self, publish: Publish, boards: Boards) -> None:
        self._publish = publish
        self.boards = boards
        # More topics to follow from now on (the runner's, once added: subscribed at once, and again on every connect
        # as long as `topics()` names them)
        self.subscribe: Callable[[list[str]], None] = lambda _topics: None

    def send(self, topic: str, doc: object, retain: bool = False) -> None:
        self._publish(topic, json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode(), retain)

    def describe(self) -> str:
        return self.name

    def topics(self) -> list[str]:
        """Extra topics to subscribe to (QoS 1); their messages come to `on_message`."""
        return []

    def will(self) -> tuple[str, bytes] | None:
        """A retained last will (topic, payload) the runner's client leaves with the broker, if any."""
        return None

    def on_connect(self) -> None:
        """Connected (again) and subscribed."""

    def on_board(self, board: str) -> None:
        """A board seen for the first time (a scoreboard or its status)."""

    def on_scoreboard(self, board: str, doc: dict[str, Any]) -> None:
        """A readable scoreboard document (the retained one on subscribing, then every update)."""

    def on_moment(self, board: str, moment: dict[str, Any]) -> None:
        """A readable scoring moment."""

    def on_bridge(self, board: str, online: bool | None) -> None:
        """Whether the bridge that keeps the board is online changed (its own status, or the board now names another
        bridge); None: not known (a display shows it as live)."""

    def on_message(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """A message on one of `topics()` (wildcards allowed); `retained`: the broker's kept copy."""

    def on_removed(self, board: str) -> None:
        """The board is gone: its retained scoreboard was cleared (an empty retained message)."""

    def tick(self, now: float) -> None:
        """A few times a second, for timers; `now` is the runner's monotonic clock."""

    def close(self) -> None:
        """The runner stops (still connected): undo anything temporary."""
