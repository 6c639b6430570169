"""The tournament journal: the director's acts, each checked against the event, then appended durably, then
folded. The file is a Flickboard journal (host/core/journal.py: JSON lines, a CRC per line, one write and an fsync
per act, an exclusive lock), whose set-up is `{"tournament": {"name": ..., "version": 1}}`.

`Director.open` sets a torn last line aside exactly as a game's resume does (a `kill -9` mid-append leaves at most
that line, which was never acknowledged); `read` folds a journal without the lock and without changing it (a
torn tail is left in place and not read). Either way the event is the fold of the complete lines, so a restart
gives the same event, byte for byte (`document.dumps`).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType
from typing import Any

from flickboard.core import journal
from flickboard.rules.text import N_, Message
from flickboard.tournament import proposals
from flickboard.tournament.event import ActError, Event, fold

VERSION = 1


def event_name(path: str, setup: dict[str, Any]) -> str:
    """The tournament's name from its journal's set-up line (JournalError: not a tournament journal of this version)."""
    t = setup.get("tournament")
    if type(t) is not dict or type(t.get("name")) is not str or t.get("version") != VERSION:
        said = N_("journal {path} is not a Flickboard tournament journal (version {version})")
        raise journal.JournalError(Message(said, path=path, version=VERSION))
    return str(t["name"])


def read(path: str) -> Event:
    """The event a tournament journal holds now, read without the lock; nothing on disk changes."""
    snap = journal.read(path)
    return fold(snap.records, event_name(path, snap.header))


class Director:
    """A tournament journal held open by this process: `act` checks, appends, then folds one act."""

    def __init__(self, j: journal.Journal, event: Event) -> None:
        self._journal = j
        self.event = event
        self.path = j.path
        self.torn = j.torn  # the incomplete last line set aside at open, if a crash left one

    @classmethod
    def create(cls, path: str, name: str) -> Director:
        if type(name) is not str or not name.strip() or len(name) > 200:
            raise ActError(Message("a tournament's name is a text of 1 to 200 characters"))
        j = journal.Journal.create(path, {"tournament": {"name": name, "version": VERSION}})
        return cls(j, Event(name))

    @classmethod
    def open(cls, path: str, wait: float = 0.0) -> Director:
        """The tournament's journal, locked (`wait`: seconds to wait for another process appending to it)."""
        j = journal.Journal.open(path, wait=wait)
        try:
            name = event_name(path, j.header)
        except journal.JournalError:
            j.close()
            raise
        return cls(j, fold(j.records, name))

    def close(self) -> None:
        self._journal.close()

    def __enter__(self) -> Director:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def act(self, act: dict[str, Any]) -> int:
        """Check `act` against the event (ActError, and nothing is written), append it (on disk before this
        returns), fold it; its entry number."""
        self.event.check(act)
        n = self._journal.append(act)
        self.event.apply({**act, "n": n})
        return n

    # -- one method per act --------------------------------------------------------------------------------

    def add_entrant(
        self, name: str, players: Sequence[str] | None = None, seed: int | None = None, club: str | None = None
    ) -> int:
        """An entrant: one player (`players` None) or a doubles team of two."""
        return self.act(
            {"act": "entrant", "name": name, "players": list(players or [name]), "seed": seed, "club": club}
        )

    def rename(self, entrant: str, name: str) -> int:
        """The entrant's new name, everywhere from now on (a singles entrant's player too)."""
        return self.act({"act": "rename", "entrant": entrant, "name": name})

    def substitute(self, entrant: str, out: str, new: str) -> int:
        """A doubles team's player `out` replaced by `new`."""
        return self.act({"act": "substitute", "entrant": entrant, "out": out, "in": new})

    def withdraw(self, entrant: str, reason: str = "") -> int:
        return self.act({"act": "withdraw", "entrant": entrant, "reason": reason})

    def disqualify(self, entrant: str, reason: str) -> int:
        return self.act({"act": "disqualify", "entrant": entrant, "reason": reason})

    def start_stage(
        self,
        name: str,
        format: str,
        *,
        options: dict[str, Any] | None = None,
        game: str = "pichenotte",
        rules: str | None = None,
        match: str | None = None,
        tiebreaks: Sequence[str] | None = None,
        intake: dict[str, Any] | None = None,
        entrants: Sequence[str] | None = None,
    ) -> int:
        """A stage: its format and options, the game, rule set and match format its matches are played with, its
        tie-break chain (None: `standings.SWISS_CHAIN` for Swiss, `DEFAULT_CHAIN` otherwise), and who enters
        (`intake`: None for every active entrant, or {"from": STAGE, "top": N}). The seeding is
        `proposals.seeding` unless `entrants` gives it."""
        order = list(entrants) if entrants is not None else proposals.seeding(self.event, name, intake, format)
        return self.act(
            {
                "act": "stage",
                "name": name,
                "format": format,
                "options": dict(options or {}),
                "game": game,
                "rules": rules,
                "match": match,
                "tiebreaks": list(tiebreaks) if tiebreaks is not None else None,
                "intake": intake,
                "entrants": order,
            }
        )

    def pair_round(self, stage: str) -> int:
        """Pair the next round of a Swiss stage (`proposals.next_round`)."""
        st = self.event.stages.get(stage)
        pairs, bye = proposals.next_round(self.event, stage)
        r = len(st.rounds) + 1 if st else 0
        return self.act({"act": "pair", "stage": stage, "round": r, "pairs": [list(p) for p in pairs], "bye": bye})

    def assign(self, match: str, board: str) -> int:
        return self.act({"act": "assign", "match": match, "board": board})

    def unassign(self, match: str, reason: str = "") -> int:
        """The match off its board, back to waiting for one."""
        return self.act({"act": "unassign", "match": match, "reason": reason})

    def abandon(self, board: str, journal_path: str, reason: str = "") -> int:
        """The unfinished game on `board` (its game journal) may be replaced by the board's next match."""
        return self.act({"act": "abandon", "board": board, "journal": journal_path, "reason": reason})

    def result(
        self,
        match: str,
        winner: str,
        *,
        games: Sequence[int] | None = None,
        points: Sequence[int] | None = None,
        twenties: Sequence[int] | None = None,
        twenties_confirmed: bool = False,
        shootout: Sequence[int] | None = None,
        source: str = "organiser",
        evidence: dict[str, Any] | None = None,
        correct: bool = False,
        reason: str = "",
    ) -> int:
        """A match's result, each pair of numbers in the match's order of sides; `correct` replaces a result."""
        m = self.event.matches.get(match)
        act: dict[str, Any] = {
            "act": "correct" if correct else "result",
            "match": match,
            "sides": list(m.sides) if m else None,
            "winner": winner,
            "games": list(games) if games is not None else None,
            "points": list(points) if points is not None else None,
            "twenties": list(twenties) if twenties is not None else None,
            "twenties_confirmed": twenties_confirmed,
            "shootout": list(shootout) if shootout is not None else None,
            "source": source,
            "evidence": evidence,
        }
        if correct:
            act["reason"] = reason
        return self.act(act)

    def walkover(self, match: str, winner: str, reason: str = "") -> int:
        return self.act({"act": "walkover", "match": match, "winner": winner, "reason": reason})

    def shootout(self, stage: str, entrants: Sequence[str], twenties: Sequence[int], source: str = "organiser") -> int:
        """A twenties shoot-out among tied entrants (R-1-B), for the tie-break chain's `shootout`."""
        return self.act(
            {
                "act": "shootout",
                "stage": stage,
                "entrants": list(entrants),
                "twenties": list(twenties),
                "source": source,
            }
        )

    def shootout_matches(self, stage: str) -> list[str]:
        """The shoot-out matches a stage's standings need (R-1-B): for each group still level at the end of its
        chain, a `shootout-round` act with every pair of the group once (`proposals.shootout_rounds`). The ids of
        the matches made, in order; none when no tie awaits a shoot-out (ActError when one cannot be made now)."""
        ids: list[str] = []
        for act in proposals.shootout_rounds(self.event, stage):
            self.act(act)
            ids += self.event.stages[stage].shootout_rounds[-1].matches
        return ids

    def undo(self) -> int:
        """Take back the last act still in effect."""
        if not self.event.applied:
            raise ActError(Message("there is no act to undo"))
        return self.act({"act": "undo", "ref": self.event.applied[-1][0]})
