"""The Flicochet engine (seed 004): apply(options, state, input) -> Result(new state, effects).

Pure: no I/O, no clock, no randomness. States are immutable; an illegal input raises `Illegal` with one sentence
that says what is wrong and what would be valid, and the caller keeps its old state.

Two sides, red (0) and white (1), each with 6 discs shared out among its members (Team rules). Discs are counted,
not tracked: per side, in hand + on the table + off the table = 6, checked after every input. Sides alternate
flicks, the start side first (PLAYING 2); within a side the members take turns, and who flicks first for a side
rotates round by round (Team rules). A round is scored from the order of the discs to each jack, or from
measured distances (PLAYING 3), or ends early when the (last) jack leaves the table (Penalty rule).
Distances are whole tenths of a centimetre, so nothing here is a float.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from flickboard.rules.base import Illegal
from flickboard.rules.immutable import Log, evolve
from flickboard.rules.text import Message

from .options import Options

SIDES = ("red", "white")
LETTERS = ("R", "W")

JackState = Literal["unplaced", "table", "off"]


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Flick:
    """The next flick (PLAYING 2). `at`: where the disc was placed, in tenths of a cm from the nearest jack, when
    it was measured (Proximity rule)."""

    player: int | None = None
    at: int | None = None


@dataclass(frozen=True)
class Off:
    """A disc of `side` left the table during the latest flick; `by` is the side that flicked, if stated."""

    side: int
    by: int | None = None


@dataclass(frozen=True)
class JackOff:
    """A jack left the table during the latest flick (Penalty rule; DOUBLE-JACK 4). `jack` is 1 or 2."""

    jack: int | None = None


@dataclass(frozen=True)
class Place:
    """Target: a jack was flicked into place by the start side, or positioned by the other side (TARGET 2).
    `off`: the placement flick sent it off the table, so the other side positions it."""

    player: int | None = None
    off: bool = False


@dataclass(frozen=True)
class Order:
    """The discs on the table by distance to a jack, closest first, as sides (PLAYING 3)."""

    jack: int | None
    discs: tuple[int, ...]


@dataclass(frozen=True)
class Distances:
    """Measured distances of every disc on the table to a jack, as (side, tenths of a cm) (PLAYING 3)."""

    jack: int | None
    discs: tuple[tuple[int, int], ...]


Input = Flick | Off | JackOff | Place | Order | Distances

# ---------------------------------------------------------------- state


@dataclass(frozen=True)
class Setup:
    players: tuple[str, ...]
    teams: tuple[int, ...]  # the side of each player: 0 red, 1 white
    start: int = 0  # the player who starts the first round (SETTING UP 3: drawn at random, off the engine)

    def __post_init__(self) -> None:
        if not 2 <= len(self.players) <= 6:
            raise ValueError(Message("Flicochet is for 2 to 6 players"))
        if len(self.teams) != len(self.players) or any(t not in (0, 1) for t in self.teams):
            raise ValueError(Message("give every player a team: red or white"))
        if not self.members(0) or not self.members(1):
            raise ValueError(Message("each team, red and white, needs at least one player"))
        if not 0 <= self.start < len(self.players):
            raise ValueError(Message("the start player must be one of the players"))

    def members(self, side: int) -> tuple[int, ...]:
        return tuple(i for i, t in enumerate(self.teams) if t == side)

    def side_of(self, player: int) -> int:
        return self.teams[player]


@dataclass(frozen=True)
class Question:
    kind: Literal["place", "order"]
    side: int | None  # the side that answers (place), None for both (order)
    text: str
    answers: tuple[str, ...]


@dataclass(frozen=True)
class Round:
    number: int
    start: int  # the start side: it places the jack and flicks first (PLAYING 1-2)
    firsts: tuple[int, int]  # per side: position in its members of who flicks first this round (Team rules)
    jacks: tuple[JackState, ...]
    placer: int | None = None  # Target: the side placing the jack(s) now; None once they are all placed
    flicks: tuple[int, int] = (0, 0)
    table: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    last: int | None = None  # the player of the latest flick
    knocked: tuple[int, int] = (0, 0)  # discs of each side knocked off by an opponent's flick (SCHOOL RULES)
    penalties: tuple[int, int] = (0, 0)  # penalty points each side receives (Penalty rule, DOUBLE-JACK 4)
    jack_points: tuple[tuple[int, int] | None, ...] = ()  # per jack, once scored
    orders: tuple[tuple[int, ...] | None, ...] = ()  # per jack: the sides as entered, closest first
    points: tuple[int, int] | None = None  # set when the round is over
    ended: Literal["scored", "jack"] | None = None


@dataclass(frozen=True)
class State:
    setup: Setup
    target: int
    discs: int
    rounds: Log[Round] = field(default_factory=Log)  # finished rounds
    round: Round | None = None
    winner: int | None = None
    over: bool = False

    def totals(self) -> tuple[int, int]:
        t = [0, 0]
        for r in self.rounds:
            assert r.points is not None
            t[0] += r.points[0]
            t[1] += r.points[1]
        return (t[0], t[1])

    def hand(self, side: int) -> int:
        r = self.round
        return 0 if r is None else self.discs - r.flicks[side]

    def order_of(self, side: int) -> tuple[int, ...]:
        """The side's members in this round's flicking order."""
        r = self.round
        m = self.setup.members(side)
        first = 0 if r is None else r.firsts[side]
        return m[first:] + m[:first]

    def player_hand(self, player: int) -> int:
        """Discs still in this player's hand: the team's 6 shared out as its members take turns (Team rules)."""
        r = self.round
        if r is None:
            return 0
        side = self.setup.side_of(player)
        order = self.order_of(side)
        n, pos = len(order), order.index(player)
        dealt = sum(1 for i in range(self.discs) if i % n == pos)
        used = sum(1 for i in range(r.flicks[side]) if i % n == pos)
        return dealt - used

    def to_flick(self) -> int | None:
        """The player whose flick is next, None when no flick is due."""
        r = self.round
        if self.over or r is None or r.points is not None or r.placer is not None:
            return None
        done = r.flicks[0] + r.flicks[1]
        if done >= 2 * self.discs:
            return None
        side = r.start if done % 2 == 0 else 1 - r.start
        order = self.order_of(side)
        return order[r.flicks[side] % len(order)]

    def placer_player(self) -> int | None:
        """Target: who places the jack now - the start player, or after a jack went off, the other side's first."""
        r = self.round
        if r is None or r.placer is None:
            return None
        return self.order_of(r.placer)[0]

    def questions(self) -> tuple[Question, ...]:
        r = self.round
        if self.over or r is None or r.points is not None:
            return ()
        if r.placer is not None:
            who = self.setup.players[self.placer_player() or 0]
            n = r.jacks.index("unplaced") + 1
            if r.placer == r.start:
                text = (
                    Message("{player} flicks jack {n} into place (TARGET 2)", player=who, n=n)
                    if len(r.jacks) > 1
                    else Message("{player} flicks the jack into place (TARGET 2)", player=who)
                )
                return (Question("place", r.placer, text, ("place", "place off")),)
            text = (
                Message("{player} positions the jack: a jack left the table while being placed (TARGET 2)", player=who)
                if len(r.jacks) == 1
                else Message(
                    "{player} positions jack {n}: a jack left the table while being placed (TARGET 2)", player=who, n=n
                )
            )
            return (Question("place", r.placer, text, ("place",)),)
        if self.to_flick() is not None:
            return ()
        qs = []
        for j, state in enumerate(r.jacks):
            if state == "table" and r.jack_points[j] is None:
                label = f" {j + 1}" if len(r.jacks) > 1 else ""
                qs.append(
                    Question(
                        "order",
                        None,
                        Message(
                            "enter the discs on the table by distance to jack{label}, closest first (PLAYING 3)",
                            label=label,
                        ),
                        (f"order{label} R W ...", f"dist{label} R 12.5 W 20 ..."),
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


def _firsts(setup: Setup, number: int) -> tuple[int, int]:
    """Who flicks first for each side in round `number`: the start player's side begins with the start player,
    then both sides rotate one member per round (Team rules)."""
    out = []
    for side in (0, 1):
        m = setup.members(side)
        base = m.index(setup.start) if setup.side_of(setup.start) == side else 0
        out.append((base + number - 1) % len(m))
    return (out[0], out[1])


def _new_round(options: Options, setup: Setup, number: int, start: int) -> Round:
    placing = options.target_variant
    return Round(
        number=number,
        start=start,
        firsts=_firsts(setup, number),
        jacks=tuple("unplaced" if placing else "table" for _ in range(options.jacks)),
        placer=start if placing else None,
        jack_points=(None,) * options.jacks,
        orders=(None,) * options.jacks,
    )


def new_game(options: Options, setup: Setup) -> State:
    if len(setup.players) > 2 and not options.teams:
        raise ValueError(Message("more than 2 players play in teams (Team rules): add +teams to the rule set"))
    if len(setup.players) == 2 and options.teams:
        raise ValueError(Message("team play needs 3 to 6 players"))
    st = State(setup=setup, target=options.target, discs=options.discs_per_colour)
    return evolve(st, round=_new_round(options, setup, 1, setup.side_of(setup.start)))


def apply(options: Options, state: State, inp: Input) -> Result:
    """Apply one input. Raises Illegal (state untouched) when the rules do not allow it."""
    fx: list[dict[str, Any]] = []
    if state.over:
        raise Illegal(Message("the game is over: {side} won; start a new game", side=SIDES[state.winner or 0]))
    if isinstance(inp, Flick):
        new = _flick(options, state, inp, fx)
    elif isinstance(inp, Off):
        new = _off(options, state, inp, fx)
    elif isinstance(inp, JackOff):
        new = _jack_off(options, state, inp, fx)
    elif isinstance(inp, Place):
        new = _place(state, inp, fx)
    elif isinstance(inp, Order):
        new = _order(options, state, inp, fx)
    elif isinstance(inp, Distances):
        new = _distances(options, state, inp, fx)
    else:  # pragma: no cover - the Input union is closed
        raise Illegal(Message("unknown input {input}", input=repr(inp)))
    check_accounting(new)
    qs = new.questions()
    if qs and qs != state.questions():
        fx.append({"type": "question", "kinds": [q.kind for q in qs]})
    return Result(new, tuple(fx))


def check_accounting(state: State) -> None:
    """Every disc is in hand, on the table or off the table; a failure is an engine bug, never a user error."""
    r = state.round
    if r is None:
        return
    for side in (0, 1):
        hand = state.hand(side)
        parts = (hand, r.table[side], r.off[side])
        if sum(parts) != state.discs or min(parts) < 0:
            raise AssertionError(f"disc accounting broken for {SIDES[side]}: {r}")
        if sum(state.player_hand(p) for p in state.setup.members(side)) != hand:
            raise AssertionError(f"per-player discs do not add up for {SIDES[side]}: {r}")


# ---------------------------------------------------------------- helpers


def _set(pair: tuple[int, int], side: int, delta: int) -> tuple[int, int]:
    lst = [pair[0], pair[1]]
    lst[side] += delta
    return (lst[0], lst[1])


def _round(state: State) -> Round:
    if state.round is None or state.round.points is not None:
        raise Illegal(Message("no round is in progress"))  # pragma: no cover - a new round starts at once
    return state.round


def _counts(state: State, side: int) -> str:
    r = _round(state)
    return Message(
        "{side}: {hand} in hand, {table} on the table, {off} off the table",
        side=SIDES[side],
        hand=state.hand(side),
        table=r.table[side],
        off=r.off[side],
    )


def _jack_index(r: Round, jack: int | None, what: str) -> int:
    n = len(r.jacks)
    if jack is None:
        if n == 1:
            return 0
        on = [j for j, s in enumerate(r.jacks) if s == "table"]
        if len(on) == 1:  # one jack left on the table: it is the one meant
            return on[0]
        raise Illegal(Message("there are two jacks on the table: say which, e.g. '{what} 1' or '{what} 2'", what=what))
    if not 1 <= jack <= n:
        if n == 1:
            raise Illegal(Message("there is no jack {jack}: this game has one jack", jack=jack))
        raise Illegal(Message("there is no jack {jack}: this game has jacks 1 and 2", jack=jack))
    return jack - 1


def _jack_name(r: Round, j: int) -> str:
    return Message("the jack") if len(r.jacks) == 1 else Message("jack {n}", n=j + 1)


# ---------------------------------------------------------------- placing the jack (Target)


def _place(state: State, inp: Place, fx: list[dict[str, Any]]) -> State:
    r = _round(state)
    if r.placer is None:
        raise Illegal(
            Message(
                "the jack is already in place: 'place' is only for Flicochet Target, at the start of a round (TARGET 2)"
            )
        )
    who = state.placer_player()
    assert who is not None
    if inp.player is not None and state.setup.side_of(inp.player) != r.placer:
        raise Illegal(
            Message(
                "{side} places the jack now, not {player} (TARGET 2)",
                side=SIDES[r.placer],
                player=state.setup.players[inp.player],
            )
        )
    if inp.player is not None and r.placer == r.start and inp.player != who:
        raise Illegal(
            Message(
                "the start player, {player}, flicks the jack into place (TARGET 2)", player=state.setup.players[who]
            )
        )
    j = r.jacks.index("unplaced")
    if inp.off:
        if r.placer != r.start:
            raise Illegal(
                Message("a jack positioned by the other side does not leave the table: write 'place' (TARGET 2)")
            )
        fx.append({"type": "jack-place-off", "jack": j + 1, "by": SIDES[r.start]})
        # MIX AND MATCH: "If either jack comes off the table during positioning, the other player positions them."
        return evolve(state, round=evolve(r, placer=1 - r.start))
    jacks = list(r.jacks)
    jacks[j] = "table"
    placer: int | None = r.placer if "unplaced" in jacks else None
    fx.append({"type": "jack-placed", "jack": j + 1, "by": SIDES[r.placer]})
    return evolve(state, round=evolve(r, jacks=tuple(jacks), placer=placer))


# ---------------------------------------------------------------- flicks and what leaves the table


def _flick(options: Options, state: State, inp: Flick, fx: list[dict[str, Any]]) -> State:
    r = _round(state)
    if r.placer is not None:
        q = state.questions()[0]
        raise Illegal(Message("first the jack: {question} ({answers})", question=q.text, answers=" / ".join(q.answers)))
    who = state.to_flick()
    if who is None:
        raise Illegal(
            Message("every disc has been flicked: score the round ('order R W ...' or 'dist R 12.5 W 20 ...')")
        )
    players = state.setup.players
    if inp.player is not None and inp.player != who:
        side = state.setup.side_of(who)
        raise Illegal(
            Message(
                "it is {player}'s flick ({side}), not {other}'s: sides alternate and team members take turns "
                "(PLAYING 2, Team rules)",
                player=players[who],
                side=SIDES[side],
                other=players[inp.player],
            )
        )
    if inp.at is not None and inp.at < options.proximity_tenths:
        raise Illegal(
            Message(
                "proximity rule: a disc is placed at least {least} cm from the jack, not {at} cm; place it further "
                "away and flick again",
                least=format(options.proximity_tenths / 10, "g"),
                at=format(inp.at / 10, "g"),
            )
        )
    side = state.setup.side_of(who)
    r = evolve(r, flicks=_set(r.flicks, side, 1), table=_set(r.table, side, 1), last=who)
    fx.append({"type": "flick", "player": players[who], "side": SIDES[side], "number": r.flicks[0] + r.flicks[1]})
    return evolve(state, round=r)


def _latest(state: State, what: str) -> tuple[Round, int]:
    r = _round(state)
    if r.last is None:
        raise Illegal(
            Message("no disc has been flicked this round, so nothing could knock {what} off the table", what=what)
        )
    if any(o is not None for o in r.orders):
        raise Illegal(Message("the round is being scored: undo or correct the scoring line first"))
    return r, state.setup.side_of(r.last)


def _off(options: Options, state: State, inp: Off, fx: list[dict[str, Any]]) -> State:
    r, by = _latest(state, Message("a disc"))
    if inp.by is not None and inp.by != by:
        raise Illegal(
            Message(
                "the latest flick was {player}'s ({side}), so {side} knocked it off",
                player=state.setup.players[r.last or 0],
                side=SIDES[by],
            )
        )
    if r.table[inp.side] == 0:
        raise Illegal(
            Message("no {side} disc is on the table ({counts})", side=SIDES[inp.side], counts=_counts(state, inp.side))
        )
    knocked = r.knocked if inp.side == by else _set(r.knocked, inp.side, 1)
    r = evolve(r, table=_set(r.table, inp.side, -1), off=_set(r.off, inp.side, 1), knocked=knocked)
    fx.append(
        {
            "type": "off",
            "side": SIDES[inp.side],
            "by": SIDES[by],
            "school_point": options.school and inp.side != by,
        }
    )
    return evolve(state, round=r)


def _jack_off(options: Options, state: State, inp: JackOff, fx: list[dict[str, Any]]) -> State:
    r, by = _latest(state, Message("the jack"))
    j = _jack_index(r, inp.jack, "jack off")
    if r.jacks[j] != "table":
        raise Illegal(Message("{jack} is already off the table", jack=_jack_name(r, j)))
    jacks = list(r.jacks)
    jacks[j] = "off"
    opp = 1 - by
    last = "table" not in jacks
    pts = options.jack_off_points if last else options.first_jack_off_points
    r = evolve(r, jacks=tuple(jacks), penalties=_set(r.penalties, opp, pts))
    fx.append({"type": "jack-off", "jack": j + 1, "by": SIDES[by], "penalty": pts, "to": SIDES[opp]})
    state = evolve(state, round=r)
    if last:
        return _end_round(options, state, "jack", fx)
    return state


# ---------------------------------------------------------------- scoring


def _ready_to_score(state: State, jack: int | None, what: str) -> tuple[Round, int]:
    r = _round(state)
    if r.placer is not None or state.to_flick() is not None:
        left = state.hand(0) + state.hand(1)
        raise Illegal(Message("the table is scored when every disc has been flicked ({n} still in hand)", n=left))
    j = _jack_index(r, jack, what)
    if r.jacks[j] == "off":
        raise Illegal(Message("{jack} is off the table: it is not scored", jack=_jack_name(r, j)))
    if r.jack_points[j] is not None:
        raise Illegal(Message("{jack} is already scored: undo or correct that line", jack=_jack_name(r, j)))
    return r, j


def _leading_run(sides: tuple[int, ...]) -> int:
    run = 0
    for s in sides:
        if s != sides[0]:
            break
        run += 1
    return run


def _score_jack(
    options: Options, state: State, r: Round, j: int, sides: tuple[int, ...], run: int, fx: list[dict[str, Any]]
) -> State:
    """PLAYING 3: only the side with the closest disc scores, one point per disc closer than the other's best."""
    pts = [0, 0]
    if sides:
        pts[sides[0]] = run
    jack_points = list(r.jack_points)
    jack_points[j] = (pts[0], pts[1])
    orders = list(r.orders)
    orders[j] = sides
    r = evolve(r, jack_points=tuple(jack_points), orders=tuple(orders))
    fx.append({"type": "jack-scored", "jack": j + 1, "points": pts})
    state = evolve(state, round=r)
    if all(p is not None or s == "off" for p, s in zip(r.jack_points, r.jacks, strict=True)):
        return _end_round(options, state, "scored", fx)
    return state


def _order(options: Options, state: State, inp: Order, fx: list[dict[str, Any]]) -> State:
    r, j = _ready_to_score(state, inp.jack, "order")
    on = r.table
    for side in (0, 1):
        n = inp.discs.count(side)
        if n > on[side]:
            raise Illegal(
                Message(
                    "the order names {n} {side} disc(s) but only {on} are on the table (only discs left on the table "
                    "are scored)",
                    n=n,
                    side=SIDES[side],
                    on=on[side],
                )
            )
    if not inp.discs:
        if on[0] or on[1]:
            raise Illegal(
                Message(
                    "discs are on the table ({red} red, {white} white): give their order, closest first",
                    red=on[0],
                    white=on[1],
                )
            )
        return _score_jack(options, state, r, j, (), 0, fx)
    lead = inp.discs[0]
    if all(s == lead for s in inp.discs):
        other = 1 - lead
        if on[other]:
            raise Illegal(
                Message(
                    "name the discs up to the closest {side} one: {n} {side} disc(s) are on the table",
                    side=SIDES[other],
                    n=on[other],
                )
            )
        if inp.discs.count(lead) != on[lead]:
            raise Illegal(
                Message(
                    "no {other} disc is on the table, so name all {n} {side} disc(s) on it",
                    other=SIDES[other],
                    n=on[lead],
                    side=SIDES[lead],
                )
            )
    return _score_jack(options, state, r, j, inp.discs, _leading_run(inp.discs), fx)


def _distances(options: Options, state: State, inp: Distances, fx: list[dict[str, Any]]) -> State:
    r, j = _ready_to_score(state, inp.jack, "dist")
    for side in (0, 1):
        n = sum(1 for s, _ in inp.discs if s == side)
        if n != r.table[side]:
            raise Illegal(
                Message(
                    "give the distance of every disc on the table: {on} {side} disc(s) are on it, not {n}",
                    on=r.table[side],
                    side=SIDES[side],
                    n=n,
                )
            )
    ranked = sorted(inp.discs, key=lambda d: (d[1], d[0]))
    best = [min((d for s, d in inp.discs if s == side), default=None) for side in (0, 1)]
    if best[0] is not None and best[0] == best[1]:
        raise Illegal(
            Message(
                "the closest red and white discs are both {cm} cm away: use the measuring card and enter the order "
                "instead (PLAYING 3)",
                cm=format(best[0] / 10, "g"),
            )
        )
    run = 0
    if ranked:
        lead = ranked[0][0]
        other_best = best[1 - lead]
        # "closer than the opponent's closest disc": a disc exactly as far does not score.
        run = sum(1 for s, d in inp.discs if s == lead and (other_best is None or d < other_best))
    return _score_jack(options, state, r, j, tuple(s for s, _ in ranked), run, fx)


def _end_round(options: Options, state: State, how: Literal["scored", "jack"], fx: list[dict[str, Any]]) -> State:
    r = state.round
    assert r is not None
    pts = [r.penalties[0], r.penalties[1]]
    for p in r.jack_points:
        if p is not None:
            pts[0] += p[0]
            pts[1] += p[1]
    if options.school:
        pts[0] += options.school_points * r.knocked[0]
        pts[1] += options.school_points * r.knocked[1]
    r = evolve(r, points=(pts[0], pts[1]), ended=how)
    fx.append({"type": "round-over", "round": r.number, "points": pts, "ended": how})
    state = evolve(state, rounds=state.rounds.append(r), round=None)
    t = state.totals()
    reached = [s for s in (0, 1) if t[s] >= state.target]
    if reached and t[0] != t[1]:
        winner = reached[0] if len(reached) == 1 else (0 if t[0] > t[1] else 1)
        fx.append({"type": "game-over", "winner": SIDES[winner], "totals": list(t)})
        return evolve(state, winner=winner, over=True)
    if reached:
        fx.append({"type": "tied-at-target", "totals": list(t)})
    # PLAYING 4: more points starts; tied, the start switches.
    start = 1 - r.start if t[0] == t[1] else (0 if t[0] > t[1] else 1)
    nxt = _new_round(options, state.setup, r.number + 1, start)
    fx.append({"type": "round", "round": nxt.number, "start": SIDES[start]})
    return evolve(state, round=nxt)
