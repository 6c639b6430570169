"""A scoring session: the journal is the truth, the game state is the fold of the engine over it.

Every input - typed, from a transcript, or from a sensor - goes through `Session.submit`:
it is read, judged against the current state by the pure engine, appended durably to the journal,
and only then becomes the session's state. A rejected input is journaled too (with no effect), so
the count of rejected inputs is part of the record and survives a restart.

`undo` and `correct N ...` are entries like any other: they mask earlier entries, never edit them.
Replaying the same entries gives the same state, whatever process does it.
"""

from __future__ import annotations

import bisect
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from flickboard.core import pockets
from flickboard.core.entries import HOST_WORDS
from flickboard.core.evidence import ShotEvidence, Step, react
from flickboard.core.journal import Damage, HeaderDamaged, Journal
from flickboard.rules import games
from flickboard.rules.base import Correct, Illegal, NotationError, Source, Undo
from flickboard.rules.games import AnyGame
from flickboard.rules.immutable import evolve
from flickboard.rules.pichenotte import Pichenotte, State
from flickboard.rules.pichenotte.engine import Facts, Shot
from flickboard.rules.quebec import Quebec
from flickboard.rules.text import Message, message_of

# Every game's refusal: a rule that forbids the input, or a line its notation cannot read (rules/base.py).
REFUSED = (Illegal, NotationError)


# The fold's records are named tuples: immutable, and made thousands of times a second under a flood.


class Applied(NamedTuple):
    """An entry in effect: its journal number, its input, and the states around it."""

    n: int
    line: Any  # the game's input (rules/<game>/engine.py)
    source: Source
    before: Any  # the game's state before and after it
    after: Any


class Outcome(NamedTuple):
    n: int
    accepted: bool
    message: str  # what happened, or why it was refused
    effects: tuple[dict[str, Any], ...] = ()


class Held(NamedTuple):
    """A board event in the fold's queue: journal entry `n`, waiting to be applied (host/core/evidence.py)."""

    n: int
    kind: str
    fields: dict[str, Any]


class NeedsHistory(Exception):
    """An undo or a correction reaches below the entries a trimmed fold still holds: fold the journal again."""


@dataclass
class Fold:
    """The running fold: the stack of entries in effect, every rejection with its reason, and the sensor side:
    the queue of board events not applied yet, the open needs-review items, the open shot's evidence."""

    game: AnyGame
    state: Any  # the game's state: a State of flickboard.rules.pichenotte, .quebec or .flicochet
    stack: list[Applied] = field(default_factory=list)
    rejected: list[tuple[int, str, str]] = field(default_factory=list)  # (n, text, reason)
    entries: int = 0
    queue: list[Held] = field(default_factory=list)
    review: list[tuple[int, str]] = field(default_factory=list)  # (n, what to check)
    evidence: ShotEvidence = field(default_factory=ShotEvidence)
    declared: bool = False  # `declare`: the next sensor-detected shot is a declared twenty
    waiting: tuple[int, str] | None = None  # (n, why) when the queue's first event cannot be applied yet
    notes: list[tuple[int, str]] = field(default_factory=list)  # the latest informational notes
    sensor_events: int = 0
    # The baseline strip: whether the board has one (its hello lists a hall sensor, or it sent a strip event), and
    # how many beam passes came since its last strip event. Pucks the strip cannot see (no magnet, a magnet too weak
    # or too deep) start their shots with no `shot_start`: the beams see them, the strip never does.
    strip: bool = False
    unseen: int = 0
    # A live session keeps only the newest entries in effect (`trim`): `base` of them were let go from the bottom
    # of the stack. The journal still has them; an undo or correction that reaches them raises NeedsHistory.
    keep: int | None = None
    base: int = 0
    # Lines read once: the sensor side's few texts ("in @sensor", "begin Ana @sensor") and a scorer's common ones
    # ("shot hit") come again and again. Parsed inputs are immutable, so they can be shared, with their canonical
    # text. Key: (text, source); value: (input, canonical text).
    parsed: dict[tuple[str, str], tuple[Any, str]] = field(default_factory=dict, repr=False, compare=False)
    # The queue is a window: with a `reader`, at most QUEUE_WINDOW board events wait in memory; the later ones stay
    # in the journal only (`spill`: the entry number of the first of them, `spilled`: how many) and are read back
    # in order, a window at a time, as the queue empties. `reader(n, limit)`: the board events of entries >= n,
    # up to `limit`, as Held, in journal order (the session reads its journal; a replay its records).
    spill: int | None = None
    spilled: int = 0
    reader: Callable[[int, int], list[Held]] | None = field(default=None, repr=False, compare=False)

    def _parse(self, text: str, source: Source) -> tuple[Any, str] | None:
        """The input a line means and its canonical text; None for an empty line. A host word is not an input."""
        known = self.parsed.get((text, source))
        if known is None:
            line: Any = self.game.parse(text, source)  # raises for a line the notation refuses: not kept
            if line is None:
                return None
            known = (line, self.game.format(line))
            if len(self.parsed) < 512:
                self.parsed[(text, source)] = known
        return known

    KEEP_NOTES = 8
    STRIP_BLIND_AFTER = 3  # beam passes without a strip event before the scoreboard says the strip sees no puck
    QUEUE_WINDOW = 1024

    @property
    def waiting_events(self) -> int:
        """Board events not applied yet: in the queue, and kept in the journal only."""
        return len(self.queue) + self.spilled

    def trim(self) -> None:
        """Let go of the oldest entries in effect once the stack is twice `keep` long (memory stays flat in a long
        match; undo and correct within the newest `keep` entries stay instant)."""
        if self.keep is not None and len(self.stack) >= 2 * self.keep:
            drop = len(self.stack) - self.keep
            del self.stack[:drop]
            self.base += drop

    def copy(self) -> Fold:
        return evolve(
            self,
            stack=list(self.stack),
            rejected=list(self.rejected),
            queue=list(self.queue),
            review=list(self.review),
            notes=list(self.notes),
        )

    def step(self, n: int, text: str, source: Source = "manual") -> Outcome:
        """Fold one typed entry. Pure apart from updating this object; never raises for bad input."""
        if n > self.entries:
            self.entries = n
        try:
            known = self.parsed.get((text, source))  # a line seen before is an input, never a host word
            if known is None:
                words = text.split()
                if words and words[0] in HOST_WORDS and (words[0] != "declare" or SENSORS[self.game.sensors].declare):
                    outcome = self._host(n, words)
                else:
                    known = self._parse(text, source)
                    if known is None:
                        raise NotationError(Message("the line is empty"))
            if known is not None:
                outcome = self._line(n, known[0], source, known[1])
        except REFUSED as e:
            said = message_of(e)  # the rules' own sentence, which a display can say in the players' language
            self.rejected.append((n, text, said))
            return Outcome(n, False, said)
        if not self.queue and self.spill is None:  # nothing for the sensor side to do (_drain would find the same)
            self.waiting = None
            return outcome
        fx = list(outcome.effects)
        self._drain(fx)
        return Outcome(outcome.n, outcome.accepted, outcome.message, tuple(fx))

    def event(self, n: int, kind: str, fields: dict[str, Any]) -> Outcome:
        """Fold one board event (journaled as entry `n`): queue it, then apply what can be applied."""
        self.entries = max(self.entries, n)
        self.sensor_events += 1
        self._watch_strip(n, kind, fields)
        if self.spill is None and (len(self.queue) < self.QUEUE_WINDOW or self.reader is None):
            self.queue.append(Held(n, kind, dict(fields)))
        else:  # the window is full: this one waits in the journal only, read back in its turn
            if self.spill is None:
                self.spill = n
            self.spilled += 1
        fx: list[dict[str, Any]] = []
        done = self._drain(fx)
        if (self.queue and self.queue[-1].n == n) or (self.spill is not None and self.spill <= n):
            done.append(
                Message("waiting: {why}", why=self.waiting[1]) if self.waiting else Message("queued behind a review")
            )
        return Outcome(n, True, "; ".join(done) or kind, tuple(fx))

    @property
    def strip_unseen(self) -> str | None:
        """The plain words for a board whose strip sees none of the pucks the beams see; None while it is fine."""
        if not self.strip or self.unseen < self.STRIP_BLIND_AFTER:
            return None
        return (
            f"the board's baseline strip has seen no puck while the beams saw {self.unseen}: these pucks' magnets are "
            "not seen (pucks without a magnet, or one too weak or too deep; hardware/README.md). Shots do not start "
            "by themselves: enter each one ('begin PLAYER')"
        )

    def _watch_strip(self, n: int, kind: str, fields: dict[str, Any]) -> None:
        if kind == "hello":
            sensors = fields.get("sn")
            if isinstance(sensors, list):
                self.strip = any(isinstance(x, dict) and x.get("k") == "hall" for x in sensors)
        elif kind in ("shot_start", "baseline_rest"):
            self.strip = True
            self.unseen = 0
        elif kind == "pass" and self.strip:
            self.unseen += 1
            if self.unseen == self.STRIP_BLIND_AFTER:
                said = self.strip_unseen
                assert said is not None
                self._note(n, said)

    # -- the sensor queue

    def _drain(self, fx: list[dict[str, Any]]) -> list[str]:
        """Apply queued board events in order until one must wait or a review holds the queue."""
        said: list[str] = []
        self.waiting = None
        while not self.review:
            if not self.queue and (self.spill is None or not self._refill()):
                break
            head = self.queue[0]
            for _ in range(3):  # a shot_start can give two lines: the end of one shot, the start of the next
                st = self._react(head)
                if st.wait is not None:
                    self.waiting = (head.n, st.wait)
                    return said
                if st.evidence is not None:
                    self.evidence = st.evidence
                if st.note is not None:
                    self._note(head.n, st.note)
                if st.moment is not None:
                    fx.append({"type": st.moment, "sensor": head.fields.get("n")})
                if st.review is not None:
                    self._hold(head.n, st.review, fx)
                    said.append(f"needs review: {st.review}")
                if st.line is not None:
                    try:
                        known = self._parse(st.line, "sensor")
                        assert known is not None
                        out = self._line(head.n, known[0], "sensor", known[1])
                    except REFUSED as e:
                        why = f"the sensors say '{st.line.removesuffix(' @sensor')}' but the rules refuse it: {e}"
                        self._hold(head.n, why, fx)
                        said.append(f"needs review: {why}")
                        break
                    fx.extend(out.effects)
                    said.append(out.message)
                    if st.line.startswith("begin "):
                        self.declared = False
                if st.done:
                    break
            self.queue.pop(0)
        return said

    def _refill(self) -> bool:
        """The next window of board events kept in the journal only, into the (empty) queue."""
        assert self.spill is not None
        got = self.reader(self.spill, self.QUEUE_WINDOW) if self.reader is not None else []
        got = [h for h in got if h.n <= self.entries]
        self.queue.extend(got)
        self.spilled -= len(got)
        if self.spilled <= 0 or not got:  # (none found for the count: the count is not to be trusted; start over)
            self.spill, self.spilled = None, 0
        else:
            self.spill = got[-1].n + 1
        return bool(got)

    def _react(self, head: Held) -> Step:
        """What one board event means for this game: the mapping its sensors name (SENSORS)."""
        return SENSORS[self.game.sensors].react(self, head)

    def _hold(self, n: int, why: str, fx: list[dict[str, Any]]) -> None:
        self.review.append((n, why))
        fx.append({"type": "review", "entry": n, "text": why})

    def _note(self, n: int, text: str) -> None:
        self.notes = [*self.notes, (n, text)][-self.KEEP_NOTES :]

    def _host(self, n: int, words: list[str]) -> Outcome:
        """The words that steer the sensor side: `reviewed`, `dismiss`, `declare`."""
        verb = words[0]
        if verb == "declare" and words[1:] in ([], ["this"]):
            return self._declare(n, this=len(words) == 2)
        if verb == "hold":
            if len(words) < 2:
                raise NotationError(Message("'hold' takes the reason after it"))
            why = " ".join(words[1:])
            fx: list[dict[str, Any]] = []
            self._hold(n, why, fx)
            return Outcome(n, True, Message("on hold: {why}", why=why), tuple(fx))
        if len(words) > 1 and verb != "reviewed":
            if verb == "declare":
                raise NotationError(Message("'declare' takes nothing after it but 'this'"))
            raise NotationError(Message("'{verb}' takes nothing after it", verb=verb))
        if verb == "reviewed":  # anything after it is the reviewer's note
            ev = self.evidence
            if not self.review and ev.ditch_passes == 0 and ev.hole_stuck == 0:
                raise Illegal(Message("nothing needs review"))
            cleared = len(self.review)
            self.review = []
            self.evidence = ShotEvidence(rested=ev.rested)  # the open shot's evidence is taken as entered
            return Outcome(n, True, Message("reviewed: {n} item(s) cleared, sensor events go on", n=cleared))
        if verb == "dismiss":
            if not self.queue and (self.spill is None or not self._refill()):
                raise Illegal(Message("no sensor event is waiting"))
            head = self.queue.pop(0)
            return Outcome(
                n, True, Message("dismissed the sensor event of entry {n} ({kind})", n=head.n, kind=head.kind)
            )
        raise AssertionError(verb)  # declare is handled above

    def _declare(self, n: int, this: bool) -> Outcome:
        """A declared twenty (R-8 choice B), which the sensors cannot hear. `declare`: the next shot to start (said
        before the flick, while the sensors still count the last shot as open); `declare this`: the shot in
        progress, for a scorer who was late."""
        assert isinstance(self.game, Pichenotte)  # `step` sends `declare` here for Pichenotte's sensors only
        st: State = self.state
        g = st.game
        shot_open = g is not None and g.shot is not None and g.points is None
        if this:
            if not shot_open:
                raise Illegal(Message("no shot is in progress: 'declare' (without 'this') is for the next shot"))
            assert g is not None and g.shot is not None
            number = g.shot.number
            idx = next((i for i in range(len(self.stack) - 1, -1, -1) if _begins(self.stack[i], number)), None)
            if idx is None:
                if self.base:
                    raise NeedsHistory()
                raise Illegal(Message("the shot in progress was entered whole: correct it instead"))
            begin = self.stack[idx].line
            assert isinstance(begin, Shot)
            if begin.call:
                raise Illegal(Message("this shot is already a declared twenty"))
            self._rebuild(idx, evolve(begin, call=True), self.stack[idx].source)
            return Outcome(
                n, True, Message("{player}'s shot is a declared twenty", player=st.setup.players[g.shot.seat])
            )
        if self.declared:
            raise Illegal(Message("a twenty is already declared for the next shot"))
        if st.over or st.shootout is not None or (not shot_open and st.to_shoot() is None):
            raise Illegal(Message("no shot is due: there is nothing to declare"))
        if not shot_open and st.next_kind() == "free":
            raise Illegal(
                Message("no opponent puck is on the board, so the next shot is a free shot: nothing to declare")
            )
        self.declared = True
        return Outcome(n, True, Message("a twenty is declared: the next shot to start is a call"))

    # -- inputs in effect

    def _line(self, n: int, line: Any, source: Source, said: str) -> Outcome:
        """Apply a parsed input; `said` is its canonical text."""
        if isinstance(line, Undo):
            if not self.stack:
                if self.base:
                    raise NeedsHistory()
                raise Illegal(Message("there is nothing to undo"))
            top = self.stack.pop()
            self.state = top.before
            return Outcome(n, True, Message("undid entry {n}: {line}", n=top.n, line=self.game.format(top.line)))
        if isinstance(line, Correct):
            return self._correct(n, line, source)
        if isinstance(line, (Shot, Facts)):
            source = line.source  # a trailing '@sensor' in the text counts, not only the caller's word
            # A sensor's shot or facts carry their journal entry: a twenty they give stays provisional until
            # confirmed by that entry (rules/pichenotte/engine.py). A typed line has no use for it.
            inp: Any = evolve(line, ref=n) if source == "sensor" else line
        else:
            inp = line
        result = self.game.apply(self.state, inp)
        self.stack.append(Applied(n, inp, source, self.state, result.state))
        self.state = result.state
        if self.declared:
            for fx in result.effects:
                if fx.get("type") == "shot":
                    self.declared = False  # a declaration is for one shot, whoever entered the shot
                    break
        return Outcome(n, True, said, result.effects)

    def _correct(self, n: int, c: Correct, source: Source) -> Outcome:
        found = [i for i, a in enumerate(self.stack) if a.n == c.ref]
        if self.base and (not found or found[0] == 0):  # it may be, or may also be, among the entries let go
            raise NeedsHistory()
        if not found:
            raise Illegal(Message("entry {n} is not in effect (it was undone, refused, or does not exist)", n=c.ref))
        if len(found) > 1:
            what = ", ".join(self.game.format(self.stack[i].line) for i in found)
            raise Illegal(
                Message(
                    "entry {n} is a sensor event that made several inputs ({what}): use undo instead",
                    n=c.ref,
                    what=what,
                )
            )
        idx = found[0]
        new_line: Any = None
        if c.line is not None:
            # The replacement is the corrector's statement, not the sensor's: read it with the correction's
            # own source, so a corrected sensor twenty is no longer provisional (docs/transcript.md).
            parsed = self.game.parse(c.line, source)
            if parsed is None or isinstance(parsed, Undo | Correct):
                raise Illegal(Message("a correction replaces an entry with a plain input"))
            new_line = evolve(parsed, ref=c.ref) if isinstance(parsed, Shot | Facts) else parsed
        fx = self._rebuild(idx, new_line, source)
        what = self.game.format(new_line) if new_line is not None else Message("nothing (struck out)")
        return Outcome(n, True, Message("entry {n} now reads: {line}", n=c.ref, line=what), fx)

    def _rebuild(self, idx: int, new_line: Any, source: Source) -> tuple[dict[str, Any], ...]:
        """Entry `idx` of the stack becomes `new_line` (None: struck out); the later entries are applied again."""
        state = self.stack[idx].before
        ref = self.stack[idx].n
        rebuilt: list[Applied] = []
        fx: tuple[dict[str, Any], ...] = ()
        if new_line is not None:
            result = self.game.apply(state, new_line)
            rebuilt.append(Applied(ref, new_line, _source(new_line, source), state, result.state))
            state, fx = result.state, result.effects
        for later in self.stack[idx + 1 :]:
            try:
                result = self.game.apply(state, later.line)
            except REFUSED as e:
                raise Illegal(
                    Message(
                        "that change would make entry {n} ({line}) illegal: {why}; undo back to it instead",
                        n=later.n,
                        line=self.game.format(later.line),
                        why=message_of(e),
                    )
                ) from None
            rebuilt.append(Applied(later.n, later.line, later.source, state, result.state))
            state = result.state
        self.stack[idx:] = rebuilt
        self.state = state
        return fx


class Sensors(NamedTuple):
    """How board events become a game's inputs. A game names its sensors (rules/games.py `sensors`)."""

    react: Callable[[Fold, Held], Step]  # what one board event means now
    declare: bool  # the scorer may `declare` a called twenty, which these sensors cannot hear


def _hole_ditch_baseline(fold: Fold, head: Held) -> Step:
    game = cast(Pichenotte, fold.game)
    return react(game, fold.state, fold.evidence, fold.declared, head.kind, head.fields)


def _pockets(fold: Fold, head: Held) -> Step:
    return pockets.react(cast(Quebec, fold.game), fold.state, head.kind, head.fields)


def _by_hand(fold: Fold, head: Held) -> Step:
    return pockets.by_hand(fold.game.title, head.kind, head.fields)


# The sensors a game can name: Pichenotte's twenty hole, ditch and baseline strip (host/core/evidence.py), Québec's
# pocket beams, and none for a game scored by hand (host/core/pockets.py).
SENSORS: dict[str, Sensors] = {
    "hole-ditch-baseline": Sensors(_hole_ditch_baseline, declare=True),
    "pockets": Sensors(_pockets, declare=False),
    "none": Sensors(_by_hand, declare=False),
}


def _begins(a: Applied, number: int) -> bool:
    """Did entry `a` open shot `number` with `begin`?"""
    after = a.after.game
    return (
        isinstance(a.line, Shot)
        and not a.line.complete
        and after is not None
        and after.shot is not None
        and after.shot.number == number
        and (a.before.game is None or a.before.game.shot is None)
    )


def _source(inp: Any, source: Source) -> Source:
    """Where an input in effect came from: a trailing '@sensor' in the text counts, not only the caller's word."""
    return inp.source if isinstance(inp, Shot | Facts) else source


def fold_entries(game: AnyGame, entries: list[tuple[int, str, Source]]) -> Fold:
    fold = Fold(game, game.start())
    for n, text, source in entries:
        fold.step(n, text, source)
    return fold


def game_of(setup: dict[str, Any], path: str) -> AnyGame:
    """The configured game a journal's setup record describes; ValueError (one line) if it names none we score."""
    kind, header = setup.get("game"), setup.get("header")
    if not isinstance(kind, str) or kind not in games.GAMES or not isinstance(header, dict):
        raise ValueError(
            f"journal {path} is not a scoring session of a game this version knows ({', '.join(games.GAMES)})"
        )
    try:
        return games.from_header({**header, "Game": [kind]})
    except ValueError as e:
        raise ValueError(f"journal {path}: {e}") from None


def entries_of(records: list[dict[str, Any]]) -> list[tuple[int, str, Source]]:
    """The typed entries of a journal: (n, text, source), the bridge's holds among them; board events are left out
    (see `fold_records`)."""
    return [
        (r["n"], r["in"], "manual" if r.get("src") == "bridge" else r.get("src", "manual"))
        for r in records
        if r.get("src") != "board"
    ]


def hold_record(why: str, details: dict[str, Any]) -> dict[str, Any]:
    """The journal record of a hold the bridge puts on the game (docs/journal.md): `in` is `hold WHY`, so every
    reader folds it as a review item; `hold` names the kind (two-boots, other-content, damage); `details`: the
    evidence (the boots, the other event in full, the damaged line)."""
    return {**details, "src": "bridge", "in": f"hold {' '.join(why.split())}", "at": now_stamp()}


def damage_why(d: Damage) -> str:
    """The plain sentence a damaged journal line puts on the scoreboard."""
    said = ""
    seen = d.seen or {}
    if isinstance(seen.get("in"), str):
        said = f"; it seems to read '{seen['in'][:80]}'"
    elif seen.get("src") == "board" and isinstance(seen.get("m"), str):
        f = seen.get("f")
        sensor = f.get("n") if isinstance(f, dict) else None
        said = f"; it seems to be a board {seen['m'][:20]} event" + (f" of sensor {str(sensor)[:20]}" if sensor else "")
    if d.line == 1:
        return (
            f"the first line of the journal, the match's set-up (game, rules, players), is damaged ({d.reason}); it "
            "was read as it seems to be: check the players, the rules and the score, then type 'reviewed'"
        )
    what = "is damaged" if d.length else "shows a record missing"
    return (
        f"line {d.line} of the journal {what} ({d.reason}) and was left out of the game{said}: check the score "
        f"against the play, enter what is missing, then type 'reviewed'"
    )


def board_record(board: str, boot: int, seq: int, kind: str, fields: dict[str, Any], t_us: int) -> dict[str, Any]:
    """The journal record of one board event (docs/journal.md)."""
    return {"src": "board", "board": board, "bt": boot, "s": seq, "m": kind, "f": fields, "t": t_us, "at": now_stamp()}


def fold_records(game: AnyGame, records: list[dict[str, Any]], keep: int | None = None) -> Fold:
    """Fold journal records, typed entries and board events alike, in journal order.
    `keep`: hold only about that many entries in effect (see `Fold.trim`); None keeps them all. The fold's queue
    of board events is a window (`Fold.QUEUE_WINDOW`); the rest is read back from `records`."""
    fold = Fold(game, game.start(), keep=keep, reader=_records_reader(records))
    # A fold makes many small objects and no reference cycles, so the cyclic garbage collector would only walk
    # them again and again (a tenth to a fifth of a long rebuild): it is paused while the fold runs.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for i, r in enumerate(records):
            try:
                _fold_record(fold, r)
            except NeedsHistory:
                # An undo or a correction (even one the rules refuse) reaching below the entries held: fold the
                # records before it again holding them all, take it, and go on trimming. Rare; a live session does
                # the same.
                fold = fold_records(game, records[:i])
                fold.reader = _records_reader(records)
                _fold_record(fold, r)
                fold.keep = keep
            fold.trim()
    finally:
        if was_enabled:
            gc.enable()
    return fold


def _records_reader(records: list[dict[str, Any]]) -> Callable[[int, int], list[Held]]:
    """A fold's reader over records in memory (a replay): the board events from entry n on."""
    numbers = [r["n"] for r in records]

    def read(n: int, limit: int) -> list[Held]:
        out: list[Held] = []
        for r in records[bisect.bisect_left(numbers, n) :]:
            if r.get("src") == "board":
                out.append(Held(r["n"], r["m"], dict(r["f"])))
                if len(out) >= limit:
                    break
        return out

    return read


def _fold_record(fold: Fold, r: dict[str, Any]) -> None:
    if r.get("src") == "board":
        fold.event(r["n"], r["m"], r["f"])
    else:  # a typed entry, or the bridge's `hold` (src "bridge": see Session.hold)
        fold.step(r["n"], r["in"], "manual" if r.get("src") == "bridge" else r.get("src", "manual"))


_SECOND: tuple[int, str] = (-1, "")  # the last whole second stamped, and its text


def now_stamp() -> str:
    """The time now in UTC, as the journal writes it: 2026-11-22T18:43:52.123456Z. The date and time part is
    formatted once a second: a flood of events stamps thousands of records a second."""
    global _SECOND
    t = time.time()
    sec = int(t)
    if _SECOND[0] != sec:
        _SECOND = (sec, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)))
    return f"{_SECOND[1]}.{int((t - sec) * 1e6):06d}Z"


class Session:
    """A live session bound to a journal file."""

    # Entries in effect held in memory: an undo or a correction further back folds the journal again.
    KEEP = 64

    def __init__(self, journal: Journal, game: AnyGame) -> None:
        self.journal = journal
        self.game = game
        self._cursor = (0, 0)  # (entry n, byte offset of its line): where the last read back stopped
        self.fold = self._fold_journal()

    def _fold_journal(self) -> Fold:
        """The fold of the whole journal, read as a stream (a long journal is never all in memory): like
        `fold_records`, holding the newest KEEP entries in effect and a window of the waiting board events."""
        fold = Fold(self.game, self.game.start(), keep=self.KEEP, reader=self._read_held)
        was_enabled = gc.isenabled()
        gc.disable()  # as in fold_records
        try:
            for r in self.journal.stream():
                try:
                    _fold_record(fold, r)
                except NeedsHistory:  # rare: fold what came before again, holding it all, as fold_records does
                    fold = fold_records(self.game, [x for x in self.journal.stream() if x["n"] < r["n"]])
                    fold.reader = self._read_held
                    _fold_record(fold, r)
                    fold.keep = self.KEEP
                fold.trim()
        finally:
            if was_enabled:
                gc.enable()
        return fold

    @classmethod
    def create(
        cls,
        path: str,
        game: AnyGame,
        meta: dict[str, list[str]] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Session:
        """A new journal for `game`; `meta`: extra transcript tags; `extra`: more setup keys (the bridge's board)."""
        header = {**(meta or {}), **game.header()}
        journal = Journal.create(path, {**(extra or {}), "game": game.name, "header": header})
        return cls(journal, game)

    @classmethod
    def resume(cls, path: str, damaged_ok: bool = False) -> Session:
        """Continue a journal. `damaged_ok`: a complete line that fails its check does not stop it (see
        `Journal.open`): every other line is folded, and each damaged line not already held is journaled as a
        hold (`hold_record`, kind `damage`), so the game waits for a person and says why, and says it again after
        every restart until someone types `reviewed`."""
        journal = Journal.open(path, damaged_ok, collect=False)  # folded as a stream: never all in memory
        try:
            game = game_of(journal.header, path)
        except ValueError as e:
            journal.close()
            if any(d.line == 1 for d in journal.damaged):  # a damaged set-up that reads as no game we know
                raise HeaderDamaged(f"journal {path} is damaged at line 1: {str(e).split(': ', 1)[-1]}") from None
            raise
        session = cls(journal, game)
        held = {r.get("line") for r in journal.stream() if r.get("src") == "bridge" and r.get("hold") == "damage"}
        for d in journal.damaged:
            if d.line not in held:
                details = {"hold": "damage", "line": d.line, "offset": d.offset, "length": d.length}
                if d.saved_to:
                    details["saved_to"] = d.saved_to
                session.hold(damage_why(d), details)
        return session

    @property
    def state(self) -> Any:
        return self.fold.state

    def submit(self, text: str, source: Source = "manual", rid: str | None = None) -> Outcome:
        """Judge, journal (durably), then take effect. Blank lines and comments are not inputs.
        `rid`: the id of the request that carried it (kept in the journal, so a resent request is known)."""
        # Undecodable input bytes (surrogate escapes) cannot be stored as JSON: journal them as backslash escapes.
        text = text.strip().encode("utf-8", "backslashreplace").decode("utf-8")
        if not text or text.startswith("#"):
            return Outcome(0, False, "nothing to record")
        n = self.journal.count + 1
        trial, outcome = self._judge(lambda fold: fold.step(n, text, source))
        rec: dict[str, Any] = {"src": source, "in": text, "at": now_stamp()}
        if rid is not None:
            rec["rid"] = rid
        stored = self.journal.append(rec)
        assert stored == n
        trial.trim()
        self.fold = trial
        return outcome

    def _judge(self, take: Callable[[Fold], Outcome]) -> tuple[Fold, Outcome]:
        """`take` the input on a copy of the fold (the session's own fold changes only once the journal has it).
        An undo or correction reaching below the entries held folds the whole journal again first."""
        trial = self.fold.copy()
        try:
            return trial, take(trial)
        except NeedsHistory:
            trial = fold_records(self.game, self.journal.records)
            trial.reader = self._read_held
            outcome = take(trial)
            trial.keep = self.KEEP
            return trial, outcome

    def record(
        self,
        board: str,
        boot: int,
        seq: int,
        kind: str,
        fields: dict[str, Any],
        t_us: int = 0,
        sync: bool = True,
    ) -> Outcome:
        """A board event: journal it (durably), then fold it. Returns once it is on disk: it may be acknowledged.
        `sync=False`: on disk only after `journal.sync()`; not to be acknowledged before."""
        # The record does not depend on what the rules make of it: journal first, then fold in place (no copy of
        # the fold per event). A journal that cannot be written raises before anything changed.
        n = self.journal.append(board_record(board, boot, seq, kind, fields, t_us), sync)
        try:  # a board event is never an undo or a correction: it needs no history
            outcome = self.fold.event(n, kind, fields)
        except Exception:
            self.fold = fold_records(self.game, self.journal.records, self.KEEP)  # never half an event in effect
            self.fold.reader = self._read_held
            raise
        self.fold.trim()
        return outcome

    def _read_held(self, n: int, limit: int) -> list[Held]:
        """The fold's reader: board events of entries >= n, up to `limit`, read back from the journal file, from
        where the last read stopped when it asks for what follows (else from the start)."""
        start = self._cursor[1] if self._cursor[0] == n else 0
        out: list[Held] = []
        for at, rec in self.journal.read_from(start):
            if rec["n"] < n:
                continue
            if len(out) >= limit:
                self._cursor = (out[-1].n + 1, at)  # the next read asks for what follows the last one given
                break
            if rec.get("src") == "board":
                out.append(Held(rec["n"], rec["m"], rec["f"]))
        return out

    def hold(self, why: str, details: dict[str, Any], sync: bool = True) -> Outcome:
        """Put the game on hold for a person: journal `hold WHY` with its evidence (`hold_record`), then fold it as a
        review item; sensor events wait behind it until `reviewed`. `sync` as for `record`."""
        rec = hold_record(why, details)
        n = self.journal.append(rec, sync)
        outcome = self.fold.step(n, rec["in"], "manual")
        self.fold.trim()
        return outcome

    def summary(self) -> dict[str, Any]:
        return self.game.summary(self.state, len(self.fold.rejected))

    def close(self) -> None:
        self.journal.close()
