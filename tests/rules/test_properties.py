"""Property tests of the session fold: random input lines (legal-looking and garbage) and mostly-legal games.

After every step: the puck accounting holds, the summary is JSON, a refused step changes nothing, and within
a game twenties are never taken back except by undo/correct (or the one rule that voids a twenty: a contact
shot with no contact, RULES-NOTES decision 1). At the end: replaying the same entries gives the same summary,
and so does a journaled Session after `Session.resume`.

Reproducible: every test is derandomized (the examples are a function of the test), no database is used.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from flickboard.core.session import Fold, Outcome, Session, fold_entries
from flickboard.rules.base import Correct, Source, Undo
from flickboard.rules.pichenotte import RULE_SETS, Pichenotte, State
from flickboard.rules.pichenotte.engine import FACTS, FORFEIT_REASONS, ZONE_VALUES, check_accounting

SINGLES = ["North", "South"]
DOUBLES = ["Ann", "Bob", "Cat", "Dan"]  # sides Ann+Cat and Bob+Dan
RULES = sorted(RULE_SETS)
SEATINGS = {"singles": SINGLES, "doubles": DOUBLES}


def reproducible(examples: int) -> settings:
    """Derandomized (the examples depend only on the test), no example database, no deadline."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None, print_blob=False)


def make_game(rules: str, seating: str, match: str | None = None) -> Pichenotte:
    return Pichenotte.create(rules, SEATINGS[seating], match=match)


def dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, sort_keys=True, allow_nan=False)


# ---------------------------------------------------------------- the per-step invariants


def rails(state: State) -> dict[int, tuple[int, int]]:
    """Twenties on the rail per game number: finished games and the one in progress."""
    out = {g.number: g.rail for g in state.games}
    if state.game is not None:
        out[state.game.number] = state.game.rail
    return out


def check_accounting_explicitly(state: State) -> None:
    check_accounting(state)  # the engine's own check (raises AssertionError)
    g = state.game
    if g is None or g.points is not None:
        return
    for side in (0, 1):
        parts = (state.hand(side), g.board[side], g.ditch[side], g.rail[side])
        assert min(parts) >= 0, (side, parts)
        assert sum(parts) == state.dealt, f"side {side}: hand+board+ditch+rail = {parts} != {state.dealt}"


@dataclass
class Stepper:
    """Feeds lines to a Fold the way a Session would and checks the invariants after every step."""

    game: Pichenotte
    fold: Fold
    entries: list[tuple[int, str, Source]]
    doc: dict[str, Any]  # the summary after the last step
    refused: int = 0

    @classmethod
    def start(cls, game: Pichenotte) -> Stepper:
        fold = Fold(game, game.start())
        check_accounting_explicitly(fold.state)
        return cls(game, fold, [], game.summary(fold.state))

    def summary(self) -> dict[str, Any]:
        return self.game.summary(self.fold.state, len(self.fold.rejected))

    def step(self, text: str, source: Source = "manual") -> Outcome | None:
        text = text.strip()  # what Session.submit journals
        if not text or text.startswith("#"):
            return None  # not an input (Session.submit does not journal it)
        before, before_doc, stack = self.fold.state, self.doc, list(self.fold.stack)
        n = len(self.entries) + 1
        self.entries.append((n, text, source))
        out = self.fold.step(n, text, source)
        after = self.fold.state
        assert out.n == n
        check_accounting_explicitly(after)
        doc = self.doc = self.summary()
        json.loads(dump(doc))  # JSON-serialisable, no NaN
        if not out.accepted:
            self.refused += 1
            assert after is before, f"refused {text!r} changed the state"
            assert self.fold.stack == stack
            assert doc["rejected_inputs"] == before_doc["rejected_inputs"] + 1
            assert dump({**doc, "rejected_inputs": 0}) == dump({**before_doc, "rejected_inputs": 0})
            assert self.fold.rejected[-1] == (n, text, out.message)
            return out
        assert doc["rejected_inputs"] == self.refused
        line = self.game.parse(text, source)
        if isinstance(line, Undo | Correct):
            return out
        # Neither a finished game nor a twenty already on the rail changes, except:
        assert after.games[: len(before.games)] == before.games, f"{text!r} changed a finished game"
        old, new = rails(before), rails(after)
        for number in old.keys() & new.keys():
            allowed = [0, 0]
            g = before.game
            # RULES-NOTES decision 1: a contact shot that missed scores nothing, even in the hole.
            shot = g.shot if g is not None and g.number == number else None
            if shot is not None and shot.kind == "contact" and shot.puck == "hole":
                allowed[before.setup.side_of(shot.seat)] = 1
            for side in (0, 1):
                assert new[number][side] >= old[number][side] - allowed[side], (
                    f"{text!r} took a twenty back in game {number}: {old[number]} -> {new[number]}"
                )
        return out

    def finish(self) -> None:
        """Replay determinism, in process and through a journal on disk."""
        accepted = len(self.entries) - self.refused
        event(f"accepted inputs: {'0' if not accepted else '1-9' if accepted < 10 else '10+'}")
        event(f"games finished: {len(self.fold.state.games)}")
        live = dump(self.summary())
        again = fold_entries(self.game, list(self.entries))
        assert dump(self.game.summary(again.state, len(again.rejected))) == live
        assert again.rejected == self.fold.rejected
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "j.jsonl")
            session = Session.create(path, self.game)
            try:
                for n, text, source in self.entries:
                    out = session.submit(text, source)
                    assert out.n == n
            finally:
                session.close()
            assert dump(session.summary()) == live
            resumed = Session.resume(path)
            try:
                assert resumed.journal.torn is None
                assert dump(resumed.summary()) == live
                assert len(resumed.journal.records) == len(self.entries)
            finally:
                resumed.close()


# ---------------------------------------------------------------- random lines

FACT_WORDS = [*FACTS, "20", "twenty", "baseline"]
ZONE_WORDS = ["0", "5", "10", "15", "25", "50", "edge", "EDGE", "7", "20", "-5", "²"]


def names_of(game: Pichenotte) -> list[str]:
    return [*game.setup.sides, *game.setup.players]


def fact_token(names: list[str]) -> st.SearchStrategy[str]:
    own = st.sampled_from(FACT_WORDS)
    other = st.builds(lambda who, what: f"{who}:{what}", st.sampled_from(names), st.sampled_from(FACT_WORDS))
    return st.one_of(own, other)


@functools.cache
def plain_line(game: Pichenotte) -> st.SearchStrategy[str]:
    """One legal-looking input (not undo/correct/confirm N), with random choices often illegal in the state."""
    names = names_of(game)
    players = list(game.setup.players)

    def maybe(strategy: st.SearchStrategy[str], one_in: int) -> st.SearchStrategy[list[str]]:
        return st.integers(1, one_in).flatmap(lambda k: strategy.map(lambda w: [w]) if k == 1 else st.just([]))

    shot = st.builds(
        lambda *parts: " ".join(["shot", *(w for part in parts for w in part)]),
        maybe(st.sampled_from(players), 3),
        maybe(st.just("call"), 6),
        maybe(st.sampled_from(["hit", "miss"]), 2),
        maybe(st.sampled_from(["zone", "short"]), 3),
        st.lists(fact_token(names), max_size=2),
    )
    facts = st.lists(
        st.one_of(fact_token(names), st.sampled_from(["hit", "miss", "zone", "short"])), min_size=1, max_size=3
    ).map(" ".join)
    begin = st.builds(
        lambda who, call: " ".join(["begin", *who, *call]),
        maybe(st.sampled_from(players), 3),
        maybe(st.just("call"), 4),
    )
    zones = st.builds(
        lambda verb, side, values: " ".join([*verb, side, *values]),
        maybe(st.just("zones"), 2),
        st.sampled_from(names),
        st.lists(st.sampled_from(ZONE_WORDS), max_size=13),
    )
    forfeit = st.builds(
        lambda side, why, note: " ".join(["forfeit", side, why, *note]),
        st.sampled_from(names),
        st.sampled_from([*FORFEIT_REASONS, "nap"]),
        maybe(st.just("left early"), 2),
    )
    return st.one_of(
        shot,
        shot,
        shot,
        facts,
        begin,
        st.sampled_from(["end", "confirm", "choose leave", "choose ditch"]),
        zones,
        st.sampled_from(names).map(lambda s: f"penalty {s}"),
        forfeit,
    )


GARBAGE = st.one_of(
    st.text(max_size=30),
    st.builds(
        lambda w, t: f"{w} {t}",
        st.sampled_from(["shot", "begin", "correct", "confirm", "zones", "choose", "penalty", "undo", "end"]),
        st.text(max_size=12),
    ),
    st.sampled_from(["confirm ²", "correct ¹ -", "zones North ³", "@sensor", "correct", "shot shot", "undo 1"]),
)
LINE_KINDS = st.sampled_from(["legal"] * 4 + ["plain"] * 4 + ["undo", "correct", "confirm", "garbage"])


def any_line(data: st.DataObject, game: Pichenotte, state: State, entries: int) -> tuple[str, Source]:
    """A random line: one chosen from the state (as in a real game), a legal-looking one, or garbage."""
    kind = data.draw(LINE_KINDS, label="kind")
    if kind == "legal" and not state.over:
        return legal_line(data, game, state, Budget(undos=0, garbage=0, forfeits=0))
    if kind == "undo":
        text = "undo"
    elif kind == "correct":
        n = data.draw(st.integers(0, entries + 1), label="entry")
        text = f"correct {n} " + data.draw(st.one_of(st.just("-"), plain_line(game)), label="correction")
    elif kind == "confirm":
        text = f"confirm {data.draw(st.integers(0, entries + 1), label='entry')}"
    elif kind == "garbage":
        text = data.draw(GARBAGE, label="garbage")
    else:
        text = data.draw(plain_line(game), label="plain")
    if data.draw(st.integers(0, 4), label="@sensor") == 0:
        text += " @sensor"
    source: Source = "sensor" if data.draw(st.integers(0, 5), label="source") == 0 else "manual"
    return text, source


@pytest.mark.parametrize("seating", sorted(SEATINGS))
@pytest.mark.parametrize("rules", RULES)
@reproducible(30)
@given(data=st.data())
def test_random_lines_keep_every_invariant(rules: str, seating: str, data: st.DataObject) -> None:
    game = make_game(rules, seating)
    stepper = Stepper.start(game)
    steps = data.draw(st.integers(1, 80), label="steps")
    for _ in range(steps):
        text, source = any_line(data, game, stepper.fold.state, len(stepper.entries))
        stepper.step(text, source)
    stepper.finish()


# ---------------------------------------------------------------- mostly-legal games


@dataclass
class Budget:
    """Caps on the off-track lines, so that every match ends within a computable number of inputs."""

    undos: int = 3
    garbage: int = 3
    penalties: int = 4
    forfeits: int = 1
    during: int = 0  # lines entered into the open shot so far

    def extra(self) -> int:
        return 2 * self.undos + self.garbage + self.penalties + self.forfeits


def zone_values(game: Pichenotte) -> list[str]:
    allowed = ZONE_VALUES if game.options.post_values else ZONE_VALUES[:4]
    return [*map(str, allowed), "edge"]


def facts_for(data: st.DataObject, game: Pichenotte, state: State, opening: bool) -> list[str]:
    """Facts that are legal now. `opening`: the shot is not on the board yet (a whole `shot` line)."""
    g = state.game
    assert g is not None
    seat = state.to_shoot()
    assert seat is not None
    shooter = state.setup.side_of(seat)
    own_free = opening or (g.shot is not None and g.shot.puck == "board")
    spare = list(g.board)
    if not opening and g.shot is not None and g.shot.puck == "board":
        spare[shooter] -= 1  # the shooting puck is counted on the board
    kinds = [f for f in FACTS if f != "hand" or game.options.hand_rule]
    out: list[str] = []
    for _ in range(data.draw(st.integers(0, 2), label="facts")):
        side = data.draw(st.sampled_from([None, 0, 1]), label="whose puck")
        what = data.draw(st.sampled_from(kinds), label="fact")
        if side is None:
            if not own_free:
                continue
            own_free = False  # conservatively: one fact for the shooting puck
            out.append(what)
        elif spare[side] > 0:
            spare[side] -= 1  # conservatively: every fact takes the puck away
            # A side by its name or by one of its players' names.
            who = [state.setup.sides[side], *(state.setup.players[s] for s in state.setup.seats_of(side))]
            out.append(f"{data.draw(st.sampled_from(who), label='side')}:{what}")
    return out


def legal_line(data: st.DataObject, game: Pichenotte, state: State, budget: Budget) -> tuple[str, Source]:
    opts = game.options
    if state.shootout is not None:
        so = state.shootout
        if min(so.shots) >= opts.shootout_pucks:
            # Sudden death: the round's first shooter makes it, the other misses, so it ends.
            return ("shot in" if so.shots[0] == so.shots[1] else "shot miss"), "manual"
        return data.draw(st.sampled_from(["shot in", "shot miss", "in", "shot"]), label="shoot-out"), "manual"
    g = state.game
    assert g is not None and g.points is None
    roll = data.draw(st.integers(0, 99), label="roll")
    if roll == 0 and budget.undos:
        budget.undos -= 1
        return "undo", "manual"
    if roll == 1 and budget.garbage:
        budget.garbage -= 1
        return data.draw(GARBAGE, label="garbage"), "manual"
    if roll == 2 and budget.penalties:
        budget.penalties -= 1
        return f"penalty {data.draw(st.sampled_from(names_of(game)))}", "manual"
    if roll == 3 and budget.forfeits and data.draw(st.integers(0, 4), label="forfeit?") == 0:
        budget.forfeits -= 1
        side = data.draw(st.sampled_from(names_of(game)))
        return f"forfeit {side} {data.draw(st.sampled_from(sorted(FORFEIT_REASONS)))}", "manual"
    qs = state.questions()
    if qs:
        q = qs[0]
        if q.kind == "zones":
            values = data.draw(
                st.lists(st.sampled_from(zone_values(game)), min_size=g.board[q.side], max_size=g.board[q.side])
            )
            verb = data.draw(st.sampled_from(["zones ", ""]))
            return f"{verb}{state.setup.sides[q.side]} {' '.join(values)}".strip(), "manual"
        return data.draw(st.sampled_from(q.answers), label="answer"), "manual"
    if g.shot is not None:  # a shot entered as it happens
        shot = g.shot
        budget.during += 1
        choice = data.draw(st.integers(0, 5), label="during the shot") if budget.during <= 3 else 5
        if choice == 0 and g.provisional:
            return "confirm", "manual"
        if choice in (1, 2):
            words = facts_for(data, game, state, opening=False)
            if shot.kind == "contact" and shot.contact is None and data.draw(st.booleans()):
                words.insert(0, data.draw(st.sampled_from(["hit", "miss"])))
            if shot.kind == "free" and opts.free_shot_zone is not None and data.draw(st.booleans()):
                words.insert(0, data.draw(st.sampled_from(["zone", "short"])))
            if words:
                how = data.draw(st.sampled_from(["text", "source", "manual"]), label="evidence")
                if how == "text":
                    return " ".join(words) + " @sensor", "manual"
                return " ".join(words), "sensor" if how == "source" else "manual"
        return "end", "manual"
    kind = state.next_kind()
    seat = state.to_shoot()
    assert kind is not None and seat is not None
    budget.during = 0
    words = [data.draw(st.sampled_from(["shot", "begin"]), label="verb")]
    if data.draw(st.booleans()):
        words.append(state.setup.players[seat])
    if kind == "contact" and data.draw(st.integers(0, 3)) == 0:
        words.append("call")
    if words[0] == "begin":
        return " ".join(words), "manual"
    if kind == "contact" and "call" not in words and data.draw(st.integers(0, 3)) > 0:
        words.append(data.draw(st.sampled_from(["hit", "hit", "miss"])))
    if kind == "free" and opts.free_shot_zone is not None and data.draw(st.integers(0, 3)) > 0:
        words.append(data.draw(st.sampled_from(["zone", "zone", "short"])))
    words += facts_for(data, game, state, opening=True)
    return " ".join(words), "manual"


MATCHES = ["games:1", "games:2", "games:3", "wins:1", "wins:2", "wins:1:shootout", "wins:2/3"]


def max_games(game: Pichenotte) -> int:
    m = game.match
    if m.kind == "games":
        return m.target
    assert m.kind == "wins"
    # Half a game each for a tie: someone reaches the target after at most 2*target games.
    return min(m.max_games or 2 * m.target, 2 * m.target)


@pytest.mark.parametrize("rules", RULES)
@reproducible(12)
@given(data=st.data())
def test_mostly_legal_games_finish_and_score_by_the_rules(rules: str, data: st.DataObject) -> None:
    seating = data.draw(st.sampled_from(sorted(SEATINGS)), label="seating")
    match = data.draw(st.sampled_from(MATCHES), label="match")
    game = make_game(rules, seating, match)
    stepper = Stepper.start(game)
    budget = Budget()
    # Per shot at most: begin, 3 lines during it, end, 2 answers; per game 2 zones lines and a shoot-out of
    # shootout_pucks + 1 rounds; one more shoot-out for the match; plus the off-track budget.
    so_shots = 2 * (game.options.shootout_pucks + 1)
    per_game = stepper.fold.state.game_shots * 7 + 2 + so_shots
    bound = max_games(game) * per_game + so_shots + budget.extra()
    inputs = 0
    while not stepper.fold.state.over:
        assert inputs < bound, f"the match did not end within {bound} inputs"
        text, source = legal_line(data, game, stepper.fold.state, budget)
        stepper.step(text, source)
        inputs += 1
    doc = stepper.summary()
    assert doc["over"] is True
    assert doc["current"] is None
    # Every refusal came from the garbage budget (or an undo with nothing to undo): the lines the engine
    # offered as answers and the facts chosen from the board were all accepted.
    assert stepper.refused <= Budget().garbage + Budget().undos, stepper.fold.rejected
    for g in doc["games"]:
        pts, tw, zones, pen = g["points"], g["twenties"], g["zones"], g["penalties"]
        if g["forfeit"] is not None:
            loser = [s["name"] for s in doc["sides"]].index(g["forfeit"]["side"])
            assert pts[loser] == 0
            assert pts[1 - loser] == 20 * tw[1 - loser] - pen[1 - loser]
        else:
            for s in (0, 1):
                assert pts[s] == 20 * tw[s] + sum(zones[s] or []) - pen[s], g
    assert doc["totals"] == [sum(g["points"][s] for g in doc["games"]) for s in (0, 1)]
    assert len(doc["games"]) <= max_games(game)
    event(f"match decided by a shoot-out: {doc['match_shootout'] is not None}")
    event(f"a game decided by a shoot-out: {any(g['decided_by_shootout'] for g in doc['games'])}")
    event(f"a game forfeited: {any(g['forfeit'] for g in doc['games'])}")
    stepper.finish()
