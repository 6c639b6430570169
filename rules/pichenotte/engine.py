"""The Pichenotte engine: apply(options, state, input) -> Result(new state, effects, open questions).

Pure: no I/O, no clock, no randomness. States are immutable; an illegal input raises `Illegal` with a
sentence that says what is wrong and what would be valid, and the caller keeps its old state. (Inside `apply`,
the handlers change a private copy of the state in place and hand it out once it is complete: see `apply`.)

Seats are numbered clockwise from 0; seat i plays for side i % 2 (singles: 2 seats facing each other;
doubles: 4 seats, partners facing, so play alternates sides - 000 rule 1, R-2).
Pucks are counted, not tracked: per side, in hand + on board + in ditch + on the rail = pucks dealt.
The only puck the engine follows individually is the one being shot ("the shooting puck").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, NamedTuple, TypeVar

from flickboard.rules.base import Illegal, Source
from flickboard.rules.immutable import Log, draft, evolve, fast_init, put
from flickboard.rules.text import N_, Message

from .options import MatchFormat, Options

# What can happen to a puck during a shot.  Without a side it is the shooting puck.
FACT_HELP: dict[str, str] = {
    "in": "dropped flat into the centre hole: a twenty, onto the rail (beginner sheet, rule 7)",
    "edge": "stands on edge or tilted in the hole: not a twenty, stays on the board, scores 15 (A-4)",
    "ditch": "went into the ditch (beginner sheet, rule 4)",
    "base": "came to rest touching the baseline: out of bounds, to the ditch (beginner sheet rule 8, R-5A)",
    "off": "flew off the board: to the ditch once retrieved (R-10-C 2018, R-10-A 2019)",
    "rebound": "flew off and bounced back onto the board: to the ditch (R-10)",
    "in-rebound": "flew off, bounced back and landed in the hole (R-10)",
    "in-by-rebound": "knocked into the hole by a rebounding puck (R-10)",
    "hand": "touched the shooter's hand: own puck to the ditch, opponent's stays (R-10-B 2019)",
}
FACTS = tuple(FACT_HELP)
_TO_DITCH = {"ditch": "ditch", "base": "baseline", "off": "off the board", "rebound": "rebound"}
ZONE_VALUES = (0, 5, 10, 15, 25, 50)

ShotKind = Literal["contact", "call", "free", "shootout"]


# ---------------------------------------------------------------- inputs


@fast_init
@dataclass(frozen=True)
class Fact:
    what: str
    side: int | None = None  # None: the shooting puck; a side: another puck of that side


@fast_init
@dataclass(frozen=True)
class Facts:
    """Things that happened during the shot in progress. Manual facts with no shot open are a whole shot."""

    facts: tuple[Fact, ...] = ()
    contact: bool | None = None
    zone: bool | None = None
    source: Source = "manual"
    ref: int | None = None  # the journal entry that carried it (for provisional sensor twenties)


@fast_init
@dataclass(frozen=True)
class Shot:
    """A shot by the player whose turn it is; `complete` = begin, apply facts, end, in one input."""

    seat: int | None = None
    call: bool = False
    facts: tuple[Fact, ...] = ()
    contact: bool | None = None
    zone: bool | None = None
    complete: bool = True
    source: Source = "manual"
    ref: int | None = None


@dataclass(frozen=True)
class EndShot:
    pass


@dataclass(frozen=True)
class Choose:
    """The opponent's choice after a failed declared twenty (R-8 choice B): leave the puck, or ditch it."""

    ditch: bool


@dataclass(frozen=True)
class Zones:
    """End-of-game values of one side's pucks on the board (R-11); the value entered is final (R-5)."""

    side: int
    values: tuple[int, ...]


@dataclass(frozen=True)
class Penalty:
    """A-2: touching a puck before it stops costs 20 points in the game in progress."""

    side: int


FORFEIT_REASONS: dict[str, str] = {
    "phone": "mobile device used during play (NO-a)",
    "board": "gameboard moved on purpose (NO-c)",
    "contested": "contested puck removed early (R-7)",
    "retrieval": "shot while an off-board puck was being retrieved (R-10-C 2018, R-10-A 2019)",
    "other": "referee's decision",
}


@dataclass(frozen=True)
class Forfeit:
    side: int
    reason: str  # a key of FORFEIT_REASONS
    note: str = ""


@dataclass(frozen=True)
class Confirm:
    """A player confirms provisional sensor twenties: all of the open shot's, or the one from entry `ref`."""

    ref: int | None = None


Input = Facts | Shot | EndShot | Choose | Zones | Penalty | Forfeit | Confirm

# ---------------------------------------------------------------- state


@dataclass(frozen=True)
class Setup:
    players: tuple[str, ...]  # 2 or 4 names in clockwise seat order
    sides: tuple[str, str]
    breaker: int = 0  # seat of the first game's breaker

    def __post_init__(self) -> None:
        if len(self.players) not in (2, 4):
            raise ValueError(Message("Pichenotte is played by 2 players (singles) or 4 (doubles)"))
        if not 0 <= self.breaker < len(self.players):
            raise ValueError(Message("the breaker must be one of the players"))

    def side_of(self, seat: int) -> int:
        return seat % 2

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(len(self.players)) if s % 2 == side)


@fast_init
@dataclass(frozen=True)
class Question:
    kind: Literal["contact", "zone", "choice", "zones"]
    side: int  # the side it is about (choice: the side that answers)
    text: str
    answers: tuple[str, ...]  # notation lines that answer it


@fast_init
@dataclass(frozen=True)
class OpenShot:
    number: int  # 1-based within the game
    seat: int
    kind: ShotKind
    contact: bool | None = None
    zone: bool | None = None
    puck: Literal["board", "hole", "ditch"] = "board"  # where the shooting puck is now
    twenties: tuple[int, int] = (0, 0)  # twenties credited per side during this shot
    facts: tuple[tuple[str, str], ...] = ()  # (fact, outcome) log lines
    ending: bool = False  # `end` was given; waiting for questions
    choice: bool | None = None  # R-8 B answer: True = ditched


@fast_init
@dataclass(frozen=True)
class ShotRecord:
    game: int
    number: int
    seat: int
    side: int
    kind: ShotKind
    contact: bool | None
    zone: bool | None
    facts: tuple[tuple[str, str], ...]
    result: str
    twenties: tuple[int, int]  # twenties credited this shot, per side


@fast_init
@dataclass(frozen=True)
class Shootout:
    purpose: Literal["game", "match"]
    first: int  # seat
    shots: tuple[int, int] = (0, 0)
    twenties: tuple[int, int] = (0, 0)


@fast_init
@dataclass(frozen=True)
class Game:
    number: int
    breaker: int
    shots: int = 0
    board: tuple[int, int] = (0, 0)
    ditch: tuple[int, int] = (0, 0)
    rail: tuple[int, int] = (0, 0)
    penalties: tuple[int, int] = (0, 0)
    shot: OpenShot | None = None
    questions: tuple[Question, ...] = ()
    provisional: tuple[tuple[int, int], ...] = ()  # (journal ref, side) of unconfirmed sensor twenties
    zones: tuple[tuple[int, ...] | None, tuple[int, ...] | None] = (None, None)
    forfeit: tuple[int, str] | None = None
    points: tuple[int, int] | None = None  # set when the game is scored
    winner: int | None = None  # None with points set: a tied game
    shootout_winner: bool = False  # the winner came from a shoot-out


@dataclass(frozen=True)
class State:
    setup: Setup
    match: MatchFormat
    per_player: int
    games: Log[Game] = field(default_factory=Log)  # finished games
    game: Game | None = None
    log: Log[ShotRecord] = field(default_factory=Log)
    shootout: Shootout | None = None
    winner: int | None = None
    over: bool = False
    shootout_result: tuple[int, int] | None = None  # the match shoot-out's twenties, once over
    # Kept as each game finishes, so that a long match does not add up every game again after each one.
    won: tuple[float, float] = (0.0, 0.0)  # games won; a tied game gives half to each side
    scored: tuple[int, int] = (0, 0)  # total points of the finished games

    # -- derived views used by the engine, the CLI and the scoreboard --

    # The setup and the pucks per player never change in a match: each figure is worked out once, on first use,
    # and every later state shares it (cached_property keeps it in the instance dictionary, which states copy).

    @cached_property
    def seats(self) -> int:
        return len(self.setup.players)

    @cached_property
    def dealt(self) -> int:
        """Pucks per side per game (000 rule 1)."""
        return self.per_player * self.seats // 2

    @cached_property
    def game_shots(self) -> int:
        return self.per_player * self.seats

    def hand(self, side: int) -> int:
        g = self.game
        if g is None:
            return 0
        breaker_side = g.breaker % 2
        taken = (g.shots + 1) // 2 if side == breaker_side else g.shots // 2
        return self.dealt - taken

    def to_shoot(self) -> int | None:
        """The seat whose shot is next (or open), None when no shot is due."""
        if self.over:
            return None
        if self.shootout:
            so = self.shootout
            return (so.first + sum(so.shots)) % self.seats
        g = self.game
        if g is None or g.points is not None:
            return None
        if g.shot:
            return g.shot.seat
        if g.shots >= self.game_shots or g.forfeit:
            return None
        # singles alternate; doubles go clockwise. Both are "next seat round the table".
        return (g.breaker + g.shots) % self.seats

    def questions(self) -> tuple[Question, ...]:
        return self.game.questions if self.game else ()

    def next_kind(self) -> ShotKind | None:
        """What the next shot must be, from the board (R-8 / R-9, 000 rules 4-5)."""
        seat = self.to_shoot()
        if seat is None:
            return None
        if self.shootout:
            return "shootout"
        assert self.game is not None
        if self.game.shot:
            return self.game.shot.kind
        opponent = 1 - self.setup.side_of(seat)
        return "contact" if self.game.board[opponent] > 0 else "free"

    def wins(self) -> tuple[float, float]:
        """Games won; a tied game gives half to each side (000 rule 9, 002 rule 9)."""
        return self.won

    def totals(self) -> tuple[int, int]:
        return self.scored


class Result(NamedTuple):
    state: State
    effects: tuple[dict[str, Any], ...] = ()

    @property
    def questions(self) -> tuple[Question, ...]:
        return self.state.questions()


# ---------------------------------------------------------------- entry points


def new_match(options: Options, setup: Setup, match: MatchFormat | None = None) -> State:
    st = State(
        setup=setup,
        match=match or options.match,
        per_player=options.pucks_per_player(len(setup.players)),
    )
    if st.match.kind == "shootout":
        # A match that is only the twenties shoot-out (001 R-1-B, 000 rule 9): no game; the breaker shoots first,
        # and it ends as a match shoot-out does (`_shootout`: the winner and `shootout_result`).
        return evolve(st, shootout=Shootout("match", setup.breaker))
    return evolve(st, game=Game(number=1, breaker=setup.breaker))


def apply(options: Options, state: State, inp: Input) -> Result:
    """Apply one input. Raises Illegal (state untouched) when the rules do not allow it."""
    if state.over:
        raise Illegal(
            Message("the match is over: {side} won; start a new match", side=state.setup.sides[state.winner or 0])
        )
    fx: list[dict[str, Any]] = []
    # The handlers below change a private copy of the state, its game and its open shot in place (see
    # rules/immutable.py): a shot typed as one line is many steps, and the state is copied once for all of them.
    # A refused input raises before the copy is handed out, so the caller's state is never touched.
    new = _draft(state)
    if new.shootout is not None:
        _shootout(options, new, inp, fx)
    elif isinstance(inp, Shot):
        _shot(options, new, inp, fx)
    elif isinstance(inp, Facts):
        _facts(options, new, inp, fx)
    elif isinstance(inp, EndShot):
        _end(options, new, fx)
    elif isinstance(inp, Choose):
        _choose(options, new, inp, fx)
    elif isinstance(inp, Zones):
        _zones(options, new, inp, fx)
    elif isinstance(inp, Penalty):
        _penalty(new, inp, fx)
    elif isinstance(inp, Forfeit):
        _forfeit(options, new, inp, fx)
    elif isinstance(inp, Confirm):
        _confirm(new, inp, fx)
    else:  # pragma: no cover - the Input union is closed
        raise Illegal(Message("unknown input {input}", input=repr(inp)))
    check_accounting(new)
    return Result(new, tuple(fx))


def _draft(state: State) -> State:
    """A copy of `state` whose game and open shot are copies too: the one input being applied changes them."""
    new = draft(state)
    g = state.game
    if g is not None:
        g = new.__dict__["game"] = draft(g)
        if g.shot is not None:
            g.__dict__["shot"] = draft(g.shot)
    return new


def check_accounting(state: State) -> None:
    """The puck accounting invariant; a failure here is a bug in the engine, never a user error."""
    g = state.game
    if g is None or g.points is not None:
        return
    dealt = state.dealt
    # State.hand, inlined: the breaker's side has shot the odd shot out.
    h0, h1 = dealt - (g.shots + 1) // 2, dealt - g.shots // 2
    if g.breaker % 2:
        h0, h1 = h1, h0
    (b0, b1), (d0, d1), (r0, r1) = g.board, g.ditch, g.rail
    if h0 + b0 + d0 + r0 != dealt or h1 + b1 + d1 + r1 != dealt or min(h0, h1, b0, b1, d0, d1, r0, r1) < 0:
        raise AssertionError(f"puck accounting broken: {g}")


# ---------------------------------------------------------------- helpers


def _name(state: State, side: int) -> str:
    return state.setup.sides[side]


def _counts(state: State, side: int) -> str:
    g = state.game
    assert g is not None
    return Message(
        "{side}: {hand} in hand, {board} on the board, {ditch} in the ditch, {rail} on the rail",
        side=_name(state, side),
        hand=state.hand(side),
        board=g.board[side],
        ditch=g.ditch[side],
        rail=g.rail[side],
    )


N = TypeVar("N", int, float)


def _set(pair: tuple[N, N], side: int, delta: N) -> tuple[N, N]:
    return (pair[0] + delta, pair[1]) if side == 0 else (pair[0], pair[1] + delta)


def _game(state: State) -> Game:
    if state.game is None or state.game.points is not None:
        raise Illegal(Message("no game is in progress"))
    return state.game


def _blocking(state: State) -> None:
    g = _game(state)
    if g.questions:
        q = g.questions[0]
        raise Illegal(Message("first answer: {question} ({answers})", question=q.text, answers=" / ".join(q.answers)))


# ---------------------------------------------------------------- shots


def _shot(options: Options, state: State, inp: Shot, fx: list[dict[str, Any]]) -> None:
    g = _game(state)
    if g.forfeit:
        raise Illegal(Message("this game was forfeited"))
    if g.questions:
        _blocking(state)
    if g.shot is not None:
        who = state.setup.players[g.shot.seat]
        raise Illegal(Message("{player}'s shot is still open: add what happened, or 'end' it", player=who))
    if g.shots >= state.game_shots:
        raise Illegal(
            Message("all pucks have been shot: enter the zones of the pucks on the board (zones SIDE 15 10 5 ...)")
        )
    seat = (g.breaker + g.shots) % state.seats  # State.to_shoot, for a game in play with no shot open
    if inp.seat is not None and inp.seat != seat:
        raise Illegal(
            Message(
                "it is {player}'s shot, not {other}'s (R-2: singles alternate, doubles go clockwise)",
                player=state.setup.players[seat],
                other=state.setup.players[inp.seat],
            )
        )
    side = seat % 2  # Setup.side_of
    # What the shot must be (State.next_kind, with no shot open and no shoot-out), 000 rules 4-5.
    kind: ShotKind = "contact" if g.board[1 - side] > 0 else "free"
    if inp.call:
        if kind == "free":
            raise Illegal(
                Message(
                    "no {side} puck is on the board, so this is a free shot (R-9; beginner sheet, rule 5): there is no "
                    "twenty to declare",
                    side=_name(state, 1 - side),
                )
            )
        kind = "call"
    number = g.shots + 1
    put(g, shots=number, board=_set(g.board, side, 1), shot=OpenShot(number=number, seat=seat, kind=kind))
    fx.append({"type": "shot", "seat": seat, "side": side, "kind": kind, "number": number})
    _add_facts(options, state, inp, fx)  # a shot carries its facts the way a Facts input does
    if inp.complete:
        _end(options, state, fx)


def _facts(options: Options, state: State, inp: Facts, fx: list[dict[str, Any]]) -> None:
    g = _game(state)
    if g.shot is None:
        if inp.source == "sensor":
            raise Illegal(Message("sensor evidence arrived with no shot in progress"))
        # A manual line of facts with no shot open is a whole shot ("hit", "in", "miss S:ditch").
        _shot(options, state, Shot(facts=inp.facts, contact=inp.contact, zone=inp.zone, ref=inp.ref), fx)
        return
    _add_facts(options, state, inp, fx)
    assert g.shot is not None
    if g.shot.ending:
        _end(options, state, fx)


def _add_facts(options: Options, state: State, inp: Facts | Shot, fx: list[dict[str, Any]]) -> None:
    g = state.game
    assert g is not None and g.shot is not None
    shot = g.shot
    if inp.contact is not None:
        if shot.kind != "contact":
            if shot.kind == "call":
                raise Illegal(Message("contact only matters on a contact shot; this is a declared twenty"))
            raise Illegal(Message("contact only matters on a contact shot; this is a free shot"))
        if shot.contact is not None and shot.contact != inp.contact:
            was = "hit" if shot.contact else "miss"
            raise Illegal(
                Message("contact was already entered as '{was}': undo or correct that entry instead", was=was)
            )
        put(shot, contact=inp.contact)
        if g.questions:
            put(g, questions=tuple(q for q in g.questions if q.kind != "contact"))
    if inp.zone is not None:
        if shot.kind != "free" or options.free_shot_zone is None:
            raise Illegal(Message("the free-shot zone only matters on a free shot under rules that require one (R-9)"))
        put(shot, zone=inp.zone)
        if g.questions:
            put(g, questions=tuple(q for q in g.questions if q.kind != "zone"))
    for fact in inp.facts:
        _fact(options, state, fact, inp, fx)


def _fact(options: Options, state: State, fact: Fact, inp: Facts | Shot, fx: list[dict[str, Any]]) -> None:
    g = state.game
    assert g is not None and g.shot is not None
    shot = g.shot
    shooter = shot.seat % 2
    side = shooter if fact.side is None else fact.side
    label = "the shooting puck" if fact.side is None else f"a {_name(state, side)} puck"
    if fact.what not in FACT_HELP:
        raise Illegal(
            Message("'{what}' is not something a puck can do: one of {facts}", what=fact.what, facts=", ".join(FACTS))
        )
    # Is the puck on the board to begin with?
    if fact.side is None:
        if shot.puck != "board":
            if shot.puck == "hole":
                raise Illegal(Message("the shooting puck is already in the hole"))
            raise Illegal(Message("the shooting puck is already in the ditch"))
    else:
        spare = g.board[side] - (1 if side == shooter and shot.puck == "board" else 0)
        if spare < 1:
            counts = _counts(state, side)
            if side == shooter:
                raise Illegal(
                    Message("no other {side} puck is on the board ({counts})", side=_name(state, side), counts=counts)
                )
            raise Illegal(Message("no {side} puck is on the board ({counts})", side=_name(state, side), counts=counts))
    if fact.what == "hand" and not options.hand_rule:
        raise Illegal(Message("these rules have no hand rule (R-10-B is in the 2019 tournament rules)"))

    outcome: Literal["twenty", "ditch", "stays"]
    if fact.what == "in":
        outcome = "twenty"
    elif fact.what == "edge":
        outcome = "stays"
    elif fact.what in _TO_DITCH:
        outcome = "ditch"
    elif fact.what == "in-rebound":
        # 2018 R-10-A/B: counts only if it is the opponent's puck; 2019 R-10: ditch even in the hole.
        outcome = "twenty" if options.rebound == "2018" and side != shooter else "ditch"
    elif fact.what == "in-by-rebound":
        # 2018: "except a twenty for the shooter"; 2019: counts whoever owns it.
        outcome = "twenty" if options.rebound == "2019" or side != shooter else "ditch"
    else:  # hand, R-10-B
        outcome = "ditch" if side == shooter else "stays"

    if fact.what == "edge" and fact.side is None and shot.kind == "free" and options.free_shot_zone is not None:
        # "treated as in the 15" - so it meets any free-shot zone requirement (R-9, 000 rule 5 advanced).
        if shot.zone is False:
            raise Illegal(
                Message("a puck on edge in the hole counts as in the 15 zone (A-4), so the free shot is not short")
            )
        put(shot, zone=True)
    if outcome == "twenty":
        put(g, board=_set(g.board, side, -1), rail=_set(g.rail, side, 1))
        put(shot, twenties=_set(shot.twenties, side, 1))
        if fact.side is None:
            put(shot, puck="hole")
        provisional = inp.source == "sensor" and inp.ref is not None
        if provisional:
            assert inp.ref is not None
            put(g, provisional=(*g.provisional, (inp.ref, side)))
        fx.append({"type": "twenty", "side": side, "provisional": provisional})
    elif outcome == "ditch":
        put(g, board=_set(g.board, side, -1), ditch=_set(g.ditch, side, 1))
        if fact.side is None:
            put(shot, puck="ditch")
        fx.append({"type": "ditch", "side": side, "why": fact.what})
    said = fact.what if fact.side is None else f"{_name(state, side)}:{fact.what}"
    put(shot, facts=(*shot.facts, (said, f"{label}: {fact.what} -> {outcome}")))


def _end(options: Options, state: State, fx: list[dict[str, Any]]) -> None:
    g = _game(state)
    shot = g.shot
    if shot is None:
        raise Illegal(Message("no shot is in progress"))
    side = shot.seat % 2
    opp = 1 - side
    questions: list[Question] = [q for q in g.questions if q.kind == "choice"]
    player = state.setup.players[shot.seat]
    if shot.kind == "contact" and shot.contact is None and shot.puck != "ditch" and not questions:
        questions.append(
            Question(
                "contact",
                side,
                Message("did {player}'s shot touch one of {side}'s pucks?", player=player, side=_name(state, opp)),
                ("hit", "miss"),
            )
        )
    if (
        shot.kind == "free"
        and options.free_shot_zone is not None
        and shot.puck == "board"
        and shot.zone is None
        and not (options.free_shot_other_puck and shot.twenties[side] > 0)
    ):
        zone = options.free_shot_zone
        text = (
            Message(
                "did {player}'s free shot rest in the {zone} zone or inside it (or move another {side} puck there)?",
                player=player,
                zone=zone,
                side=_name(state, side),
            )
            if options.free_shot_other_puck
            else Message("did {player}'s free shot rest in the {zone} zone or inside it?", player=player, zone=zone)
        )
        questions.append(Question("zone", side, text, ("zone", "short")))
    if questions:  # the shot waits for the answers, then ends
        put(shot, ending=True)
        put(g, questions=tuple(questions))
        fx.append({"type": "question", "kinds": [q.kind for q in questions]})
        return
    _resolve(options, state, fx)  # it ends now; _resolve sets the game's questions either way


def _ditch_shooting_puck(state: State, fx: list[dict[str, Any]], why: str) -> None:
    g = state.game
    assert g is not None and g.shot is not None
    shot = g.shot
    side = shot.seat % 2
    if shot.puck == "hole":  # RULES-NOTES 1.1: a twenty without the required contact scores nothing
        put(g, rail=_set(g.rail, side, -1))
        put(shot, twenties=_set(shot.twenties, side, -1))
    else:
        put(g, board=_set(g.board, side, -1))
    put(g, ditch=_set(g.ditch, side, 1))
    put(shot, puck="ditch")
    fx.append({"type": "ditch", "side": side, "why": why})


def _resolve(options: Options, state: State, fx: list[dict[str, Any]]) -> None:
    """The shot's facts are all in: apply the objective (R-8, R-9, 000 rules 4-5)."""
    g = state.game
    assert g is not None and g.shot is not None
    shot = g.shot
    side = shot.seat % 2
    result = "stands"
    if shot.kind == "contact" and shot.contact is False and shot.puck != "ditch":
        _ditch_shooting_puck(state, fx, N_("no contact"))
        result = Message("no contact: shooting puck to the ditch")
    elif shot.kind == "call":
        made = shot.puck == "hole" if options.call_success == "shooting-puck" else shot.twenties[side] > 0
        if made:
            result = Message("declared twenty made")
        elif shot.puck != "board":
            result = Message("declared twenty missed; shooting puck already in the ditch")
        elif options.failed_call == "ditch":
            _ditch_shooting_puck(state, fx, N_("declared twenty missed"))
            result = Message("declared twenty missed: shooting puck to the ditch")
        elif shot.choice is None:
            opp = 1 - side
            q = Question(
                "choice",
                opp,
                Message(
                    "{side}'s declared twenty failed: {other} chooses to leave the shooting puck on the board or "
                    "remove it to the ditch (R-8 choice B)",
                    side=_name(state, side),
                    other=_name(state, opp),
                ),
                ("choose leave", "choose ditch"),
            )
            fx.append({"type": "question", "kinds": ["choice"]})
            put(shot, ending=True)  # it ends once the opponent has chosen
            put(g, questions=(q,))
            return
        elif shot.choice:
            _ditch_shooting_puck(state, fx, N_("opponent's choice"))
            result = Message("declared twenty missed: opponent removed the shooting puck")
        else:
            result = Message("declared twenty missed: opponent left the shooting puck on the board")
    elif shot.kind == "free" and options.free_shot_zone is not None and shot.puck == "board":
        met = shot.zone is True or (options.free_shot_other_puck and shot.twenties[side] > 0)
        if not met:
            _ditch_shooting_puck(state, fx, N_("free shot short"))
            result = Message("free shot short of the {zone} zone: to the ditch", zone=options.free_shot_zone)
    record = ShotRecord(
        g.number,
        shot.number,
        shot.seat,
        side,
        shot.kind,
        shot.contact,
        shot.zone,
        shot.facts,
        result,
        shot.twenties,
    )
    put(g, shot=None, questions=(), provisional=())
    fx.append({"type": "shot-end", "seat": shot.seat, "result": result})
    put(state, log=state.log.append(record))
    if g.shots >= state.game_shots:
        _ask_zones(state, fx)


def _choose(options: Options, state: State, inp: Choose, fx: list[dict[str, Any]]) -> None:
    g = _game(state)
    if not any(q.kind == "choice" for q in g.questions):
        raise Illegal(Message("there is no choice to make: it follows only a failed declared twenty (R-8 choice B)"))
    assert g.shot is not None
    put(g.shot, choice=inp.ditch)
    put(g, questions=())
    _resolve(options, state, fx)


def _confirm(state: State, inp: Confirm, fx: list[dict[str, Any]]) -> None:
    g = _game(state)
    if not g.provisional:
        raise Illegal(Message("there is no provisional twenty to confirm"))
    if inp.ref is None:
        keep: tuple[tuple[int, int], ...] = ()
    else:
        keep = tuple(p for p in g.provisional if p[0] != inp.ref)
        if len(keep) == len(g.provisional):
            refs = ", ".join(str(p[0]) for p in g.provisional)
            raise Illegal(Message("entry {n} is not a provisional twenty (provisional: {refs})", n=inp.ref, refs=refs))
    fx.append({"type": "confirmed", "count": len(g.provisional) - len(keep)})
    put(g, provisional=keep)


# ---------------------------------------------------------------- end of game


def _ask_zones(state: State, fx: list[dict[str, Any]]) -> None:
    g = state.game
    assert g is not None
    qs = tuple(
        Question(
            "zones",
            side,
            Message("enter the zones of {side}'s {n} puck(s) on the board", side=_name(state, side), n=g.board[side]),
            (f"zones {_name(state, side)} " + " ".join(["15"] * g.board[side]),),
        )
        for side in (0, 1)
        if g.board[side] > 0 and g.zones[side] is None
    )
    if not qs:
        _score(state, fx)
        return
    fx.append({"type": "question", "kinds": ["zones"]})
    put(g, questions=qs)


def _zones(options: Options, state: State, inp: Zones, fx: list[dict[str, Any]]) -> None:
    g = _game(state)
    if g.shot is not None or g.shots < state.game_shots:
        left = state.hand(0) + state.hand(1) + (1 if g.shot else 0)
        raise Illegal(Message("zones are entered when every puck has been shot ({n} shot(s) still to play)", n=left))
    if g.zones[inp.side] is not None:
        raise Illegal(
            Message("{side}'s zones are already entered: undo or correct that entry", side=_name(state, inp.side))
        )
    n = g.board[inp.side]
    if len(inp.values) != n:
        raise Illegal(
            Message(
                "{side} has {n} puck(s) on the board, so enter {n} zone value(s), not {given}",
                side=_name(state, inp.side),
                n=n,
                given=len(inp.values),
            )
        )
    allowed = ZONE_VALUES if options.post_values else ZONE_VALUES[:4]
    for v in inp.values:
        if v not in allowed:
            values = ", ".join(map(str, allowed))
            if options.post_values:
                raise Illegal(Message("{value} is not a zone value: use {values}", value=v, values=values))
            raise Illegal(
                Message(
                    "{value} is not a zone value: use {values} (25 and 50 are tournament values, R-11)",
                    value=v,
                    values=values,
                )
            )
    zones = list(g.zones)
    zones[inp.side] = tuple(inp.values)
    put(g, zones=(zones[0], zones[1]), questions=tuple(q for q in g.questions if q.side != inp.side))
    if not g.questions:
        _score(state, fx)


def _score(state: State, fx: list[dict[str, Any]]) -> None:
    """R-11: 20 per twenty on the rail, the zones of the pucks on the board, minus A-2 penalties."""
    g = state.game
    assert g is not None
    pts = tuple(20 * g.rail[s] + sum(g.zones[s] or ()) - 20 * g.penalties[s] for s in (0, 1))
    points = (pts[0], pts[1])
    winner = None if points[0] == points[1] else (0 if points[0] > points[1] else 1)
    put(g, points=points, winner=winner, questions=())
    if winner is None and state.match.kind == "wins" and state.match.tied_game == "shootout":
        fx.append({"type": "shootout", "purpose": "game"})
        put(state, shootout=Shootout("game", g.breaker))
        return
    _finish_game(state, fx)


def _finish_game(state: State, fx: list[dict[str, Any]]) -> None:
    g = state.game
    assert g is not None and g.points is not None
    fx.append({"type": "game-over", "game": g.number, "points": list(g.points), "winner": g.winner})
    won = state.won
    won = (won[0] + 0.5, won[1] + 0.5) if g.winner is None else _set(won, g.winner, 1.0)  # a tie: half each
    scored = (state.scored[0] + g.points[0], state.scored[1] + g.points[1])
    # From here on the finished game is part of the match's record: it is not changed again.
    put(state, games=state.games.append(g), game=None, won=won, scored=scored)
    winner = _match_winner(state)
    if winner == "shootout":
        fx.append({"type": "shootout", "purpose": "match"})
        # The would-be next breaker shoots first.
        put(state, shootout=Shootout("match", (g.breaker + 1) % state.seats))
        return
    if winner is not None:
        fx.append({"type": "match-over", "winner": winner})
        put(state, winner=winner, over=True)
        return
    # singles - the Hammer (always the non-breaker) breaks next; doubles - next seat clockwise.
    put(state, game=Game(number=g.number + 1, breaker=(g.breaker + 1) % state.seats))


def _leader(pair: tuple[float, float]) -> int | None:
    return None if pair[0] == pair[1] else (0 if pair[0] > pair[1] else 1)


def _match_winner(state: State) -> int | Literal["shootout"] | None:
    m = state.match
    played = len(state.games)
    if m.kind == "wins":
        wins = state.wins()
        if max(wins) >= m.target:
            return _leader(wins) if _leader(wins) is not None else "shootout"
        if m.max_games is not None and played >= m.max_games:
            return _leader(wins) if _leader(wins) is not None else "shootout"
        return None
    totals = state.totals()
    done = played >= m.target if m.kind == "games" else max(totals) >= m.target
    if not done:
        return None
    lead = _leader((float(totals[0]), float(totals[1])))
    if lead is None:  # level on points: a side that forfeited more games loses it (decision 8, docs/rules-coverage.md)
        forfeits = [sum(1 for g in state.games if g.forfeit and g.forfeit[0] == side) for side in (0, 1)]
        lead = _leader((float(forfeits[1]), float(forfeits[0])))
    return "shootout" if lead is None else lead


def _penalty(state: State, inp: Penalty, fx: list[dict[str, Any]]) -> None:
    g = _game(state)
    fx.append({"type": "penalty", "side": inp.side, "points": -20})
    put(g, penalties=_set(g.penalties, inp.side, 1))


def _forfeit(options: Options, state: State, inp: Forfeit, fx: list[dict[str, Any]]) -> None:
    """The side forfeits the game in progress (decision 8, docs/rules-coverage.md): the other side wins the game; the
    forfeiting side scores 0 in it and the other side its twenties on the rail (less its penalties); a match won on
    points that ends level goes to the side that forfeited fewer games, not to a shoot-out."""
    g = _game(state)
    if inp.reason not in FORFEIT_REASONS:
        raise Illegal(
            Message(
                "'{reason}' is not a forfeit reason: one of {reasons}",
                reason=inp.reason,
                reasons=", ".join(FORFEIT_REASONS),
            )
        )
    other = 1 - inp.side
    pts = [0, 0]
    pts[other] = 20 * g.rail[other] - 20 * g.penalties[other]
    put(
        g,
        shot=None,
        questions=(),
        provisional=(),
        forfeit=(inp.side, inp.reason),
        points=(pts[0], pts[1]),
        winner=other,
    )
    fx.append({"type": "forfeit", "side": inp.side, "reason": inp.reason})
    _finish_game(state, fx)


# ---------------------------------------------------------------- shoot-out


def _shootout_winner(so: Shootout, pucks: int) -> int | None:
    """Decided as soon as one side cannot be caught with the pucks the other has left ("best of 12");
    level after 12 each, it goes on one puck each until a pair differs."""
    tw, shots = so.twenties, so.shots
    if shots[0] < pucks or shots[1] < pucks:
        left = (max(0, pucks - shots[0]), max(0, pucks - shots[1]))
        for side in (0, 1):
            if tw[side] > tw[1 - side] + left[1 - side]:
                return side
        return None
    if shots[0] == shots[1] and tw[0] != tw[1]:
        return 0 if tw[0] > tw[1] else 1
    return None


def _shootout(options: Options, state: State, inp: Input, fx: list[dict[str, Any]]) -> None:
    """A twenties shoot-out: each side shoots `shootout_pucks` at the hole, then one each until it breaks
    (001 R-1-B, 000 rule 9). Only the shooting puck counts: `shot in` or `shot` / `shot miss`."""
    so = state.shootout
    assert so is not None
    if isinstance(inp, Facts) and inp.source == "manual" and inp.contact is None and inp.zone is None:
        inp = Shot(facts=inp.facts)
    if not isinstance(inp, Shot) or not inp.complete:
        raise Illegal(Message("a twenties shoot-out is in progress: enter each shot as 'shot in' or 'shot miss'"))
    # `hit`, a second fact, or `miss` with `in` would be counted silently as something else: refuse them.
    if (
        inp.call
        or inp.zone is not None
        or inp.contact is True
        or len(inp.facts) > 1
        or (inp.contact is False and len(inp.facts) > 0)
        or any(f.side is not None or f.what != "in" for f in inp.facts)
    ):
        raise Illegal(Message("in a shoot-out only the shooting puck counts: enter 'shot in' or 'shot miss'"))
    seat = (so.first + sum(so.shots)) % state.seats
    if inp.seat is not None and inp.seat != seat:
        raise Illegal(Message("it is {player}'s shoot-out shot", player=state.setup.players[seat]))
    side = state.setup.side_of(seat)
    made = len(inp.facts) > 0
    so = evolve(so, shots=_set(so.shots, side, 1), twenties=_set(so.twenties, side, 1 if made else 0))
    fx.append({"type": "shootout-shot", "side": side, "in": made})
    winner = _shootout_winner(so, options.shootout_pucks)
    if winner is None:
        put(state, shootout=so)
        return
    if so.purpose == "match":
        fx.append({"type": "match-over", "winner": winner})
        put(state, shootout=None, winner=winner, over=True, shootout_result=so.twenties)
        return
    g = state.game
    assert g is not None
    put(g, winner=winner, shootout_winner=True)
    put(state, shootout=None)
    _finish_game(state, fx)
