"""A scoring session: the journal is the truth, the game state is the fold of the engine over it.

Every input - typed, from a transcript, or (later) from a sensor - goes through `Session.submit`:
it is read, judged against the current state by the pure engine, appended durably to the journal,
and only then becomes the session's state. A rejected input is journaled too (with no effect), so
the count of rejected inputs is part of the record and survives a restart.

`undo` and `correct N ...` are entries like any other: they mask earlier entries, never edit them.
Replaying the same entries gives the same state, whatever process does it.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, replace
from typing import Any

from rules.pichenotte import Illegal, Input, NotationError, Pichenotte, State
from rules.pichenotte.engine import Facts, Shot, Source
from rules.pichenotte.notation import Correct, Line, Undo

from .journal import Journal


@dataclass(frozen=True)
class Applied:
    """An entry in effect: its journal number, its input, and the states around it."""

    n: int
    line: Input
    source: Source
    before: State
    after: State


@dataclass(frozen=True)
class Outcome:
    n: int
    accepted: bool
    message: str  # what happened, or why it was refused
    effects: tuple[dict[str, Any], ...] = ()


@dataclass
class Fold:
    """The running fold: the stack of entries in effect and every rejection with its reason."""

    game: Pichenotte
    state: State
    stack: list[Applied] = field(default_factory=list)
    rejected: list[tuple[int, str, str]] = field(default_factory=list)  # (n, text, reason)
    entries: int = 0

    def step(self, n: int, text: str, source: Source = "manual") -> Outcome:
        """Fold one entry. Pure apart from updating this object; never raises for bad input."""
        self.entries = max(self.entries, n)
        try:
            line = self.game.parse(text, source)
            if line is None:
                raise NotationError("the line is empty")
            return self._line(n, line, source)
        except (Illegal, NotationError) as e:
            self.rejected.append((n, text, str(e)))
            return Outcome(n, False, str(e))

    def _line(self, n: int, line: Line, source: Source) -> Outcome:
        if isinstance(line, Undo):
            if not self.stack:
                raise Illegal("there is nothing to undo")
            top = self.stack.pop()
            self.state = top.before
            return Outcome(n, True, f"undid entry {top.n}: {self.game.format(top.line)}")
        if isinstance(line, Correct):
            return self._correct(n, line, source)
        inp: Input = replace(line, ref=n) if isinstance(line, Shot | Facts) else line
        result = self.game.apply(self.state, inp)
        self.stack.append(Applied(n, inp, _source(inp, source), self.state, result.state))
        self.state = result.state
        return Outcome(n, True, self.game.format(inp), result.effects)

    def _correct(self, n: int, c: Correct, source: Source) -> Outcome:
        idx = next((i for i, a in enumerate(self.stack) if a.n == c.ref), None)
        if idx is None:
            raise Illegal(f"entry {c.ref} is not in effect (it was undone, refused, or does not exist)")
        new_line: Input | None = None
        if c.line is not None:
            # The replacement is the corrector's statement, not the sensor's: read it with the correction's
            # own source, so a corrected sensor twenty is no longer provisional (docs/transcript.md).
            parsed = self.game.parse(c.line, source)
            if parsed is None or isinstance(parsed, Undo | Correct):
                raise Illegal("a correction replaces an entry with a plain input")
            new_line = replace(parsed, ref=c.ref) if isinstance(parsed, Shot | Facts) else parsed
        state = self.stack[idx].before
        rebuilt: list[Applied] = []
        fx: tuple[dict[str, Any], ...] = ()
        if new_line is not None:
            result = self.game.apply(state, new_line)
            rebuilt.append(Applied(c.ref, new_line, _source(new_line, source), state, result.state))
            state, fx = result.state, result.effects
        for later in self.stack[idx + 1 :]:
            try:
                result = self.game.apply(state, later.line)
            except Illegal as e:
                raise Illegal(
                    f"that correction would make entry {later.n} ({self.game.format(later.line)}) "
                    f"illegal: {e}; undo back to it instead"
                ) from None
            rebuilt.append(Applied(later.n, later.line, later.source, state, result.state))
            state = result.state
        self.stack[idx:] = rebuilt
        self.state = state
        what = self.game.format(new_line) if new_line is not None else "nothing (struck out)"
        return Outcome(n, True, f"entry {c.ref} now reads: {what}", fx)


def _source(inp: Input, source: Source) -> Source:
    """Where an input in effect came from: a trailing '@sensor' in the text counts, not only the caller's word."""
    return inp.source if isinstance(inp, Shot | Facts) else source


def fold_entries(game: Pichenotte, entries: list[tuple[int, str, Source]]) -> Fold:
    fold = Fold(game, game.start())
    for n, text, source in entries:
        fold.step(n, text, source)
    return fold


def game_of(setup: dict[str, Any], path: str) -> Pichenotte:
    """The configured game a journal's setup record describes; ValueError if it is not a Pichenotte session."""
    if setup.get("game") != "pichenotte" or not isinstance(setup.get("header"), dict):
        raise ValueError(f"journal {path} is not a Pichenotte session")
    return Pichenotte.from_header(setup["header"])


def entries_of(records: list[dict[str, Any]]) -> list[tuple[int, str, Source]]:
    """Journal records as fold entries: (n, text, source)."""
    return [(r["n"], r["in"], r.get("src", "manual")) for r in records]


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Session:
    """A live session bound to a journal file."""

    def __init__(self, journal: Journal, game: Pichenotte) -> None:
        self.journal = journal
        self.game = game
        self.fold = fold_entries(game, entries_of(journal.records))

    @classmethod
    def create(cls, path: str, game: Pichenotte, meta: dict[str, list[str]] | None = None) -> Session:
        header = {**(meta or {}), **game.header()}
        journal = Journal.create(path, {"game": "pichenotte", "header": header})
        return cls(journal, game)

    @classmethod
    def resume(cls, path: str) -> Session:
        journal = Journal.open(path)
        try:
            game = game_of(journal.header, path)
        except ValueError:
            journal.close()
            raise
        return cls(journal, game)

    @property
    def state(self) -> State:
        return self.fold.state

    def submit(self, text: str, source: Source = "manual") -> Outcome:
        """Judge, journal (durably), then take effect. Blank lines and comments are not inputs."""
        # Undecodable input bytes (surrogate escapes) cannot be stored as JSON: journal them as backslash escapes.
        text = text.strip().encode("utf-8", "backslashreplace").decode("utf-8")
        if not text or text.startswith("#"):
            return Outcome(0, False, "nothing to record")
        n = len(self.journal.records) + 1
        trial = Fold(self.game, self.fold.state, list(self.fold.stack), list(self.fold.rejected), self.fold.entries)
        outcome = trial.step(n, text, source)
        stored = self.journal.append({"src": source, "in": text, "at": _now()})
        assert stored == n
        self.fold = trial
        return outcome

    def summary(self) -> dict[str, Any]:
        return self.game.summary(self.state, len(self.fold.rejected))

    def close(self) -> None:
        self.journal.close()
