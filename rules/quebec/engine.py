"""The Québec Pichenottes engine (seed 003): apply(options, state, input) -> Result(new state, effects).

Pure: no I/O, no clock, no randomness. States are immutable; an illegal input raises `Illegal` with a sentence
that says what is wrong, and the caller keeps its old state.

Seats are numbered in turn order from 0 (sector 1 is the breaker's); seat i plays for side i % 2, so in doubles
partners face each other (règle 2) and play alternates sides. One `Shot` input is one flick of the chien and
everything it did: the pieces pocketed (and in which pocket), the pieces that fell off the board.
Dames are counted per colour (on the board or pocketed); each compteuse has one place: on the board (the centre,
where a returned one goes), pending burial for a side, or won by a side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from flickboard.rules.base import Illegal, Source
from flickboard.rules.immutable import Log, evolve
from flickboard.rules.text import Message

from .options import Options

Colour = Literal["green", "red"]
COLOURS: tuple[Colour, Colour] = ("green", "red")
COMPTEUSES = (5, 10)
PIECES = ("green", "red", "c5", "c10", "chien")
POCKETS = (1, 2, 3, 4)
# The colours as a sentence says them (a display says them in the players' language: "verte", "rouge").
COLOUR_WORDS: dict[str, str] = {"green": Message("green"), "red": Message("red")}


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Pocketed:
    piece: str  # one of PIECES
    pocket: int | None = None  # 1-4 when known


@dataclass(frozen=True)
class Shot:
    """One shot by the player whose turn it is: what it pocketed and what fell off the board."""

    seat: int | None = None
    pocketed: tuple[Pocketed, ...] = ()
    off: tuple[str, ...] = ()
    source: Source = "manual"


@dataclass(frozen=True)
class ChooseColour:
    """Règle 10: after a break that pocketed two colours or none, the next player names its colour."""

    colour: Colour


@dataclass(frozen=True)
class Foul:
    """Règle 15: the player moved a piece before shooting: the turn ends without a shot."""

    seat: int | None = None


@dataclass(frozen=True)
class PocketEvidence:
    """A pocket beam saw a piece enter pocket N; a person names it on the shot line (`shot red@N`)."""

    pocket: int
    source: Source = "sensor"


Input = Shot | ChooseColour | Foul | PocketEvidence

# ---------------------------------------------------------------- state


@dataclass(frozen=True)
class Setup:
    players: tuple[str, ...]  # 2 or 4 names in turn order
    sides: tuple[str, str]
    breaker: int = 0  # seat of the first manche's breaker, drawn by lot (règle 7)

    def __post_init__(self) -> None:
        if len(self.players) not in (2, 4):
            raise ValueError("Pichenottes is played by 2 players, or 4 in two teams of two (règle 2)")
        if not 0 <= self.breaker < len(self.players):
            raise ValueError("the breaker must be one of the players")

    def side_of(self, seat: int) -> int:
        return seat % 2

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(s for s in range(len(self.players)) if s % 2 == side)


@dataclass(frozen=True)
class Compteuse:
    value: int  # 5 or 10
    where: Literal["board", "pending", "won"] = "board"
    side: int | None = None  # pending or won: for which side


@dataclass(frozen=True)
class Question:
    kind: Literal["colour", "identify"]
    side: int  # the side that answers
    text: str
    answers: tuple[str, ...]  # notation lines that answer it


@dataclass(frozen=True)
class ShotRecord:
    manche: int
    number: int  # 1-based within the manche
    seat: int
    side: int
    pocketed: tuple[str, ...]  # canonical piece words, with @pocket
    off: tuple[str, ...]
    result: str
    stops: tuple[str, ...]  # rule numbers that ended the turn ("" when it goes on)


@dataclass(frozen=True)
class Manche:
    number: int
    breaker: int  # seat
    seat: int  # whose turn it is
    colours: tuple[Colour | None, Colour | None] = (None, None)  # per side
    pocketed: tuple[int, int] = (0, 0)  # dames pocketed, per colour in COLOURS order
    compteuses: tuple[Compteuse, Compteuse] = (Compteuse(5), Compteuse(10))
    shots: int = 0
    turn_shots: int = 0  # shots in the turn in progress
    chooser: int | None = None  # seat that must name its colour before shooting (règle 10)
    evidence: tuple[int, ...] = ()  # pockets the sensors saw, not yet named
    returned: int = 0  # compteuses put back in the centre during the manche
    points: tuple[int, int] | None = None  # set when the manche is scored
    lost: tuple[int, int] = (0, 0)  # compteuse points lost under règle 13
    finished: tuple[int, ...] = ()  # sides that entered all their dames


@dataclass(frozen=True)
class State:
    setup: Setup
    target: int
    dames: int  # per colour
    manches: Log[Manche] = field(default_factory=Log)  # scored manches
    manche: Manche | None = None
    log: Log[ShotRecord] = field(default_factory=Log)
    winner: int | None = None
    over: bool = False

    @property
    def seats(self) -> int:
        return len(self.setup.players)

    def to_play(self) -> int | None:
        if self.over or self.manche is None:
            return None
        return self.manche.seat

    def colour_of(self, side: int) -> Colour | None:
        return self.manche.colours[side] if self.manche else None

    def on_board(self, colour: Colour) -> int:
        m = self.manche
        return self.dames - (m.pocketed[COLOURS.index(colour)] if m else 0)

    def dames_left(self, side: int) -> int | None:
        """Dames of the side's colour still on the board; None before colours are known."""
        c = self.colour_of(side)
        return None if c is None else self.on_board(c)

    def totals(self) -> tuple[int, int]:
        t = [0, 0]
        for m in self.manches:
            assert m.points is not None
            t[0] += m.points[0]
            t[1] += m.points[1]
        return (t[0], t[1])

    def questions(self) -> tuple[Question, ...]:
        m = self.manche
        if m is None or self.over:
            return ()
        qs: list[Question] = []
        if m.chooser is not None:
            side = self.setup.side_of(m.chooser)
            who = self.setup.players[m.chooser]
            qs.append(
                Question(
                    "colour",
                    side,
                    Message("{player} chooses a colour before shooting (règle 10)", player=who),
                    ("color green", "color red"),
                )
            )
        if m.evidence:
            side = self.setup.side_of(m.seat)
            pockets = ", ".join(str(p) for p in m.evidence)
            qs.append(
                Question(
                    "identify",
                    side,
                    Message(
                        "the sensors saw a piece enter pocket {pockets}: which piece? (name it on the shot line)",
                        pockets=pockets,
                    ),
                    tuple(f"shot {p}@{n}" for n in dict.fromkeys(m.evidence) for p in ("green", "red", "c5", "c10")),
                )
            )
        return tuple(qs)


class Result(NamedTuple):
    state: State
    effects: tuple[dict[str, Any], ...] = ()

    @property
    def questions(self) -> tuple[Question, ...]:
        return self.state.questions()


# ---------------------------------------------------------------- entry points


def new_game(options: Options, setup: Setup) -> State:
    """Règle 5: every piece on the board (2 compteuses and 4 dames in the centre, 20 dames on the circle)."""
    st = State(setup=setup, target=options.target, dames=options.dames_per_colour)
    return evolve(st, manche=Manche(number=1, breaker=setup.breaker, seat=setup.breaker))


def apply(options: Options, state: State, inp: Input) -> Result:
    """Apply one input. Raises Illegal (state untouched) when the rules do not allow it."""
    fx: list[dict[str, Any]] = []
    if state.over:
        raise Illegal(
            Message("the partie is over: {side} won; start a new partie", side=state.setup.sides[state.winner or 0])
        )
    if isinstance(inp, Shot):
        new = _shot(options, state, inp, fx)
    elif isinstance(inp, ChooseColour):
        new = _choose(state, inp, fx)
    elif isinstance(inp, Foul):
        new = _foul(options, state, inp, fx)
    elif isinstance(inp, PocketEvidence):
        new = _evidence(state, inp, fx)
    else:  # pragma: no cover - the Input union is closed
        raise Illegal(f"unknown input {inp!r}")
    check_accounting(new)
    return Result(new, tuple(fx))


def check_accounting(state: State) -> None:
    """Every dame is on the board or pocketed; every compteuse is on the board (the centre), pending burial for a
    side, or won by a side. A failure is a bug in the engine, never a user error."""
    m = state.manche
    if m is None:
        return
    for i, colour in enumerate(COLOURS):
        if not 0 <= m.pocketed[i] <= state.dames:
            raise AssertionError(f"dame accounting broken for {colour}: {m}")
    if tuple(c.value for c in m.compteuses) != COMPTEUSES:
        raise AssertionError(f"compteuses lost track of: {m}")
    for c in m.compteuses:
        if (c.where == "board") != (c.side is None) or (c.side is not None and c.side not in (0, 1)):
            raise AssertionError(f"compteuse accounting broken: {c}")
        if c.where == "pending" and c.side != state.setup.side_of(m.seat):
            raise AssertionError(f"a compteuse is pending for a side not at play: {m}")
    if m.colours[0] is not None and m.colours[0] == m.colours[1]:
        raise AssertionError(f"both sides have the colour {m.colours[0]}")


# ---------------------------------------------------------------- helpers


def _name(state: State, side: int) -> str:
    return state.setup.sides[side]


def _manche(state: State) -> Manche:
    if state.manche is None:
        raise Illegal(Message("no manche is in progress"))
    return state.manche


def _check_seat(state: State, seat: int | None) -> int:
    m = _manche(state)
    if seat is not None and seat != m.seat:
        raise Illegal(
            Message(
                "it is {player}'s turn, not {other}'s "
                "(a turn goes on while the player pockets legally, then passes to the next seat)",
                player=state.setup.players[m.seat],
                other=state.setup.players[seat],
            )
        )
    return m.seat


def _other(colour: Colour) -> Colour:
    return COLOURS[1 - COLOURS.index(colour)]


def _value(piece: str) -> int:
    return int(piece[1:])


def _set_comp(m: Manche, value: int, comp: Compteuse) -> Manche:
    cs = tuple(comp if c.value == value else c for c in m.compteuses)
    return evolve(m, compteuses=(cs[0], cs[1]))


def _word(p: Pocketed) -> str:
    return p.piece if p.pocket is None else f"{p.piece}@{p.pocket}"


# ---------------------------------------------------------------- inputs


def _evidence(state: State, inp: PocketEvidence, fx: list[dict[str, Any]]) -> State:
    m = _manche(state)
    if inp.pocket not in POCKETS:
        raise Illegal(Message("there is no pocket {pocket}: the pockets are 1 to 4", pocket=inp.pocket))
    fx.append({"type": "pocket-evidence", "pocket": inp.pocket, "source": inp.source})
    return evolve(state, manche=evolve(m, evidence=(*m.evidence, inp.pocket)))


def _choose(state: State, inp: ChooseColour, fx: list[dict[str, Any]]) -> State:
    m = _manche(state)
    if m.chooser is None:
        if m.colours[0] is None:
            raise Illegal(
                Message("no colour to choose now: the break's first dame gives the breaker's colour (règle 10)")
            )
        raise Illegal(
            Message(
                "the colours are already set for this manche: {side} {colour}, {other} {other_colour} (règle 10)",
                side=_name(state, 0),
                colour=COLOUR_WORDS[m.colours[0] or "green"],
                other=_name(state, 1),
                other_colour=COLOUR_WORDS[m.colours[1] or "red"],
            )
        )
    side = state.setup.side_of(m.chooser)
    colours: list[Colour | None] = [None, None]
    colours[side] = inp.colour
    colours[1 - side] = _other(inp.colour)
    fx.append({"type": "colour", "side": side, "colour": inp.colour, "rule": "10", "chosen": True})
    return evolve(state, manche=evolve(m, colours=(colours[0], colours[1]), chooser=None))


def _foul(options: Options, state: State, inp: Foul, fx: list[dict[str, Any]]) -> State:
    m = _manche(state)
    _blocking(state)
    seat = _check_seat(state, inp.seat)
    side = state.setup.side_of(seat)
    record = ShotRecord(m.number, m.shots, seat, side, (), (), "moved a piece before shooting: turn over", ("15",))
    state = evolve(state, log=state.log.append(record))
    # A compteuse waiting to be buried cannot be buried now (règle 11 "sinon").
    m, returned = _return_pending(m, side)
    for v in returned:
        fx.append({"type": "compteuse", "value": v, "side": side, "outcome": "returned", "rule": "11"})
    fx.append({"type": "foul", "seat": seat, "rule": "15"})
    state = evolve(state, manche=m)
    no_colour = m.colours[0] is None
    return _end_turn(options, state, seat, ("15",), fx, choose=no_colour)


def _blocking(state: State) -> None:
    m = _manche(state)
    if m.chooser is not None:
        who = state.setup.players[m.chooser]
        raise Illegal(Message("first {player} chooses a colour (règle 10): 'color green' or 'color red'", player=who))


def _return_pending(m: Manche, side: int) -> tuple[Manche, list[int]]:
    returned = []
    for c in m.compteuses:
        if c.where == "pending" and c.side == side:
            m = _set_comp(m, c.value, Compteuse(c.value))
            m = evolve(m, returned=m.returned + 1)
            returned.append(c.value)
    return m, returned


def _check_pieces(state: State, inp: Shot) -> None:
    """The shot may only move pieces that are on the board, each once."""
    m = _manche(state)
    words = [p.piece for p in inp.pocketed] + list(inp.off)
    for p in inp.pocketed:
        if p.pocket is not None and p.pocket not in POCKETS:
            raise Illegal(Message("there is no pocket {pocket}: the pockets are 1 to 4", pocket=p.pocket))
    for colour in COLOURS:
        n = words.count(colour)
        if n > state.on_board(colour):
            raise Illegal(
                Message(
                    "only {left} {colour} dame(s) are on the board, not {n}",
                    left=state.on_board(colour),
                    colour=COLOUR_WORDS[colour],
                    n=n,
                )
            )
    for c in m.compteuses:
        w = f"c{c.value}"
        n = words.count(w)
        if n and c.where != "board":
            whose = _name(state, c.side if c.side is not None else 0)
            if c.where == "won":
                raise Illegal(
                    Message("the {value} compteuse is not on the board: it is won by {side}", value=c.value, side=whose)
                )
            raise Illegal(
                Message(
                    "the {value} compteuse is not on the board: it is waiting to be buried by {side}",
                    value=c.value,
                    side=whose,
                )
            )
        if n > 1:
            raise Illegal(Message("the {value} compteuse can only be named once in a shot", value=c.value))
    if words.count("chien") > 1:
        raise Illegal(Message("one chien is shot at a time: name it once (pocketed or off the board)"))


def _shot(options: Options, state: State, inp: Shot, fx: list[dict[str, Any]]) -> State:
    m = _manche(state)
    _blocking(state)
    seat = _check_seat(state, inp.seat)
    _check_pieces(state, inp)
    # Sensor evidence: every pocket a beam saw must be named on the line.
    named = [p.pocket for p in inp.pocketed]
    for pocket in m.evidence:
        if pocket not in named:
            raise Illegal(
                Message(
                    "the sensors saw a piece enter pocket {pocket}: "
                    "name it on the shot line (e.g. 'shot red@{pocket}')",
                    pocket=pocket,
                )
            )
        named.remove(pocket)
    side = state.setup.side_of(seat)
    pieces = [p.piece for p in inp.pocketed]
    stops: list[str] = []
    notes: list[str] = []
    number = m.shots + 1
    m = evolve(m, shots=number, turn_shots=m.turn_shots + 1, evidence=())
    fx.append(
        {
            "type": "shot",
            "seat": seat,
            "side": side,
            "number": number,
            "pocketed": [_word(p) for p in inp.pocketed],
            "off": list(inp.off),
        }
    )

    # Dames leave the board, whoever pocketed them (règle 12 counts what is left).
    colours_in = [c for c in COLOURS if c in pieces]
    pocketed = list(m.pocketed)
    for i, colour in enumerate(COLOURS):
        pocketed[i] += pieces.count(colour)
    own_before = m.colours[side]
    fond = own_before is not None and m.pocketed[COLOURS.index(own_before)] > 0
    m = evolve(m, pocketed=(pocketed[0], pocketed[1]))

    # Règle 10: the first dame gives the colour; a break with two colours or none lets the next player choose.
    choose = False
    if m.colours[0] is None:
        if len(colours_in) == 1:
            mine = colours_in[0]
            cols: list[Colour | None] = [None, None]
            cols[side], cols[1 - side] = mine, _other(mine)
            m = evolve(m, colours=(cols[0], cols[1]))
            fx.append({"type": "colour", "side": side, "colour": mine, "rule": "10", "chosen": False})
            notes.append(f"{_name(state, side)} plays {mine}")
        else:
            choose = True
            stops.append("17.6" if colours_in else "10")
    own = m.colours[side]
    opp = _other(own) if own is not None else None
    n_own = pieces.count(own) if own else 0
    n_opp = pieces.count(opp) if opp else 0
    if n_opp and not choose:
        stops.append("17.1")
        if n_own:
            stops.append("17.6")
    if "chien" in pieces:
        stops.append("17.4")  # no dame is taken out as a penalty
    if inp.off:
        stops.append("17.3")  # the piece goes back to the centre (decision)
    finished_own = own is not None and m.pocketed[COLOURS.index(own)] >= state.dames

    # Règle 11: a compteuse pocketed on the previous shot is buried by an own dame on this one.
    for c in m.compteuses:
        if c.where != "pending" or c.side != side:
            continue
        if n_own and (not n_opp or options.buried_with_other == "good"):
            m = _set_comp(m, c.value, Compteuse(c.value, "won", side))
            rule = "11" if not n_opp else "11 (two colours: good, turn over)"
            fx.append({"type": "compteuse", "value": c.value, "side": side, "outcome": "won", "rule": rule})
            notes.append(f"c{c.value} buried")
        else:
            m = _set_comp(m, c.value, Compteuse(c.value))
            m = evolve(m, returned=m.returned + 1)
            rule = "17.2" if n_own else "11"
            if n_own:
                stops.append("17.2")
            fx.append({"type": "compteuse", "value": c.value, "side": side, "outcome": "returned", "rule": rule})
            notes.append(f"c{c.value} not buried: back to the centre")

    # Compteuses pocketed by this shot.
    legal_compteuse = False
    for p in inp.pocketed:
        if p.piece not in ("c5", "c10"):
            continue
        v = _value(p.piece)
        outcome: str
        if n_opp or (choose and colours_in):
            outcome, rule = "returned", "14"
            stops.append("17.2")
        elif not fond:
            outcome, rule = "returned", "11"
            stops.append("17.5")
        elif finished_own:
            outcome, rule = "won", "14"
        elif n_own and options.bury_same_shot:
            outcome, rule = "won", "11"
        elif "chien" in pieces or inp.off:
            outcome, rule = "returned", "11"  # the turn ends: it can never be buried
        else:
            outcome, rule = "pending", "11"
        if outcome == "returned":
            m = _set_comp(m, v, Compteuse(v))
            m = evolve(m, returned=m.returned + 1)
            notes.append(f"c{v} back to the centre")
        else:
            m = _set_comp(m, v, Compteuse(v, "won" if outcome == "won" else "pending", side))
            legal_compteuse = True
            notes.append(f"c{v} {'good' if outcome == 'won' else 'to be buried'}")
        fx.append({"type": "compteuse", "value": v, "side": side, "outcome": outcome, "rule": rule})

    goes_on = not stops and (n_own > 0 or legal_compteuse)
    if not goes_on and not stops:
        stops.append("nothing")
    if goes_on and finished_own and all(c.where != "board" for c in m.compteuses):
        goes_on = False  # règle 12: all its dames are in and nothing is left for it to pocket
        stops.append("12")
    stops = list(dict.fromkeys(stops))
    result = "; ".join([*notes, "plays again" if goes_on else "turn over"])
    record = ShotRecord(
        m.number,
        number,
        seat,
        side,
        tuple(_word(p) for p in inp.pocketed),
        tuple(inp.off),
        result,
        () if goes_on else tuple(stops),
    )
    state = evolve(state, manche=m, log=state.log.append(record))
    if goes_on:
        return state
    # A compteuse still waiting when the turn ends was not buried "aussitôt" (règle 11).
    m, returned = _return_pending(m, side)
    for v in returned:
        fx.append({"type": "compteuse", "value": v, "side": side, "outcome": "returned", "rule": "11"})
    return _end_turn(options, evolve(state, manche=m), seat, tuple(stops), fx, choose=choose)


def _end_turn(
    options: Options, state: State, seat: int, stops: tuple[str, ...], fx: list[dict[str, Any]], choose: bool
) -> State:
    m = state.manche
    assert m is not None
    nxt = (seat + 1) % state.seats
    fx.append({"type": "turn-end", "seat": seat, "stops": list(stops), "next": nxt})
    m = evolve(m, seat=nxt, turn_shots=0, chooser=nxt if choose else None)
    if choose:
        fx.append({"type": "question", "kinds": ["colour"]})
    state = evolve(state, manche=m)
    finished = tuple(s for s in (0, 1) if (d := state.dames_left(s)) is not None and d == 0)
    if finished:
        return _score(options, evolve(state, manche=evolve(m, finished=finished)), fx)
    return state


# ---------------------------------------------------------------- end of a manche


def _score(options: Options, state: State, fx: list[dict[str, Any]]) -> State:
    """Règle 12: the side that entered all its dames scores 1 per opponent dame left on the board.
    Règles 4 and 13: each side adds its good compteuses, unless it has 5 dames or more left (lost to nobody)."""
    m = state.manche
    assert m is not None
    pts = [0, 0]
    lost = [0, 0]
    for side in (0, 1):
        left = state.dames_left(side)
        assert left is not None
        if side in m.finished:
            other = state.dames_left(1 - side)
            assert other is not None
            pts[side] += other
        comp = sum(c.value for c in m.compteuses if c.where == "won" and c.side == side)
        if left >= options.lose_compteuses_at:
            lost[side] = comp
        else:
            pts[side] += comp
    m = evolve(m, points=(pts[0], pts[1]), lost=(lost[0], lost[1]), chooser=None)
    fx.append({"type": "manche-over", "manche": m.number, "points": pts, "lost": lost, "finished": list(m.finished)})
    state = evolve(state, manches=state.manches.append(m), manche=None)
    totals = state.totals()
    if max(totals) >= state.target:
        if totals[0] != totals[1]:
            winner = 0 if totals[0] > totals[1] else 1
            fx.append({"type": "game-over", "winner": winner, "totals": list(totals)})
            return evolve(state, winner=winner, over=True)
        fx.append({"type": "tie", "totals": list(totals), "rule": "6"})
    # Règle 7: the break goes round the table, one seat per manche.
    breaker = (m.breaker + 1) % state.seats
    return evolve(state, manche=Manche(number=m.number + 1, breaker=breaker, seat=breaker))
