"""A board's game as the bridge keeps it (`BoardGame`: its session and what the bridge knows of its link), the set-up
of a board's next game (`GameSetup`), and the bridge's one error (`BridgeError`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flickboard.board.bridge.digests import Digests
from flickboard.board.protocol import BoardMessage
from flickboard.core.session import Session
from flickboard.rules import games
from flickboard.rules.games import AnyGame
from flickboard.rules.text import Message, message_of

MAX_REMEMBERED_IDS = 20_000  # request ids of a board's earlier matches kept (the oldest forgotten first)
MAX_REMEMBERED_GAPS = 4_096  # gaps journaled, kept to know a copy of one (the oldest forgotten first)


class BridgeError(Exception):
    """One line for the user (a bad game set-up, a journal that cannot be opened)."""


@dataclass(frozen=True)
class GameSetup:
    """A board's next game. The rule set names the game too (`tournament-2019`, `officiel`, `flicochet+school`):
    rule-set names are unique across games (rules/games.py)."""

    rules: str
    players: tuple[str, ...]
    match: str | None = None  # Pichenotte's match format
    target: str | None = None  # Québec Pichenottes and Flicochet: the points to play to

    def game(self) -> AnyGame:
        try:
            kind = games.find_rules(self.rules)
            return games.create(kind, list(self.players), rules=self.rules, match=self.match, target=self.target)
        except ValueError as e:
            raise BridgeError(Message("cannot set up a game: {reason}", reason=message_of(e))) from None


class BoardGame:
    """One board's game: its session (journal + fold) and what the bridge knows of the board's link."""

    def __init__(self, board: str, session: Session) -> None:
        self.board = board
        self.session = session
        self.via: str | None = None  # "serial /dev/..." or "mqtt"
        self.online: bool | None = None
        self.send: Callable[[dict[str, Any]], object] | None = None  # a command back to the board
        self.acked: tuple[int, int] | None = None
        self.pinged = 0.0
        self.seen = 0.0  # when its last message arrived (bridge clock)
        self.beat_at: float | None = None  # when its last heartbeat arrived
        self.beat = 0.0  # the interval between its last two heartbeats
        self.early_since = 0.0  # when the oldest event held behind a hole arrived
        self.early: dict[tuple[int, int], BoardMessage] = {}  # (boot, seq) received ahead of a missing one
        self.used = 0.0  # when it last had a message or an entry (bridge clock): the idle journals are closed
        self.requests: dict[str, tuple[int, bool]] = {}  # input request id -> (entry, accepted), from the journal
        self.digests: dict[int, Digests] = {}  # boot -> the content checks of its journaled events
        self.two_boots: set[tuple[int, int]] = set()  # (retired boot, current boot) already held in this journal
        self.last_boot: int | None = None  # the boot of its latest journaled event (the boot that still sends)
        self.two_boots_at: set[int] = set()  # the entries of those holds (a review item while not yet reviewed)
        # Request ids of the board's earlier matches (REMEMBER_MATCHES journals, at most MAX_REMEMBERED_IDS):
        # id -> (journal file name, entry, accepted); entry 0: the `new` request that opened that match.
        self.earlier: dict[str, tuple[str, int, bool]] = {}
        # Gaps journaled (boot, seq, content): a copy of one handed over again is not news (docs/reliability.md).
        self.gaps: dict[tuple[int, int, int], None] = {}
        self.other_content: set[tuple[int, int, int]] = set()  # (boot, seq, digest) already held in this journal
        # Duplicates since the last new event: when the first came (bridge clock, and UTC for people), how many.
        self.dups_at = 0.0
        self.dups_since: str | None = None
        self.dups = 0
        self.only_duplicates = False  # said: ONLY_DUPLICATES_AFTER and ONLY_DUPLICATES_MIN reached
        # Its latest heartbeat as shown on the scoreboard (`at` and HEARTBEAT_KEYS), and the boot that sent it.
        self.heartbeat: dict[str, Any] | None = None
        self.heartbeat_boot: int | None = None
        # What its last published scoreboard showed: the link view and when (bridge clock), for HEARTBEAT_EVERY.
        self.shown_link: dict[str, Any] | None = None
        self.shown_at = 0.0

    def remember_request(self, rid: str, journal: str, n: int, accepted: bool) -> None:
        """A request id of an earlier match of this board (the oldest forgotten beyond MAX_REMEMBERED_IDS)."""
        self.earlier.pop(rid, None)
        self.earlier[rid] = (journal, n, accepted)
        while len(self.earlier) > MAX_REMEMBERED_IDS:
            del self.earlier[next(iter(self.earlier))]

    def remember_gap(self, boot: int, seq: int, digest: int) -> None:
        self.gaps[(boot, seq, digest)] = None
        while len(self.gaps) > MAX_REMEMBERED_GAPS:
            del self.gaps[next(iter(self.gaps))]
