"""The engines' cheap state updates (rules/immutable.py) keep value semantics: old states never change."""

from __future__ import annotations

import dataclasses

import pytest

from flickboard.rules.immutable import Log, draft, evolve, fast_init, put
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.pichenotte.engine import Game, OpenShot, Setup, ShotRecord, State


def test_log_append_leaves_the_old_log_unchanged() -> None:
    a: Log[int] = Log()
    b = a.append(1).append(2)
    c = b.append(3)
    assert list(a) == [] and list(b) == [1, 2] and list(c) == [1, 2, 3]
    assert len(b) == 2 and b[-1] == 2 and c[1:] == (2, 3)
    with pytest.raises(IndexError):
        b[2]


def test_an_older_log_branches_without_touching_the_newer_one() -> None:
    """An undo goes back to an older state; what is appended to it must not show in the state it replaced."""
    base = Log([1, 2])
    newer = base.append(3)
    other = base.append(9)
    assert list(newer) == [1, 2, 3]
    assert list(other) == [1, 2, 9]
    assert list(base) == [1, 2]
    assert other.append(10)[-1] == 10 and list(newer) == [1, 2, 3]


def test_logs_compare_by_content() -> None:
    a = Log([1]).append(2)
    b = Log([1, 2])
    assert a == b and hash(a) == hash(b) and a == (1, 2)
    assert a != Log([1, 2, 3]) and a != Log([2, 1])


def test_evolve_matches_dataclasses_replace() -> None:
    g = Game(number=1, breaker=0)
    assert evolve(g, shots=3, board=(1, 0)) == dataclasses.replace(g, shots=3, board=(1, 0))
    assert g.shots == 0  # the original is untouched
    with pytest.raises(TypeError, match="no field 'shotz'"):
        evolve(g, shotz=1)


def test_evolve_keeps_validation_of_classes_that_have_it() -> None:
    s = Setup(("Ana", "Ben"), ("Ana", "Ben"))
    with pytest.raises(ValueError):
        evolve(s, players=("Ana",) * 3)  # Setup.__post_init__ refuses three players


def test_undo_then_a_different_shot_keeps_both_lines_of_play_apart() -> None:
    """The session keeps every state; a shot log shared between them must not leak from one line to the other."""
    game = Pichenotte.create("tournament-2019", ["Ana", "Ben"])
    st0 = game.start()
    one = game.apply(st0, game.parse("shot Ana zone")).state  # type: ignore[arg-type]
    two = game.apply(st0, game.parse("shot Ana short")).state  # type: ignore[arg-type]
    assert [r.result for r in one.log] != [r.result for r in two.log]
    assert len(one.log) == len(two.log) == 1
    again = game.apply(st0, game.parse("shot Ana zone")).state  # type: ignore[arg-type]
    assert again == one


def test_a_draft_changes_alone_and_put_refuses_unknown_fields() -> None:
    g = Game(number=1, breaker=0)
    d = draft(g)
    assert d == g and d is not g
    assert put(d, shots=2, board=(1, 1)) is d
    assert (d.shots, d.board) == (2, (1, 1)) and (g.shots, g.board) == (0, (0, 0))
    with pytest.raises(TypeError, match="no field 'shotz'"):
        put(draft(g), shotz=1)


def test_an_illegal_input_leaves_the_state_it_was_applied_to_unchanged() -> None:
    """The engine works on a draft of the state, its game and its open shot; a refusal part way through a shot
    (here after the shot has begun and a fact is in) must not show in the state the caller holds."""
    game = Pichenotte.create("tournament-2019", ["Ana", "Ben"])
    st = game.apply(game.start(), game.parse("shot Ana zone")).state  # type: ignore[arg-type]
    st = game.apply(st, game.parse("begin Ben")).state  # type: ignore[arg-type]
    before = repr(st)
    with pytest.raises(Exception, match="already in the hole"):
        game.apply(st, game.parse("in in"))  # type: ignore[arg-type]
    assert repr(st) == before
    after = game.apply(st, game.parse("in")).state  # type: ignore[arg-type]
    assert repr(st) == before and after != st
    assert st.game is not None and after.game is not None and st.game.shot is not after.game.shot


@pytest.mark.parametrize("cls", [Game, OpenShot, ShotRecord])
def test_fast_init_builds_what_the_dataclass_init_builds(cls: type) -> None:
    fields = dataclasses.fields(cls)
    required = [f for f in fields if f.default is dataclasses.MISSING]
    args = list(range(len(required)))
    made = cls(*args)
    plain = object.__new__(cls)
    for f, v in zip(fields, args + [f.default for f in fields[len(required) :]], strict=True):
        object.__setattr__(plain, f.name, v)
    assert made == plain and made.__dict__ == plain.__dict__
    with pytest.raises(TypeError):
        cls(*args[:-1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.number = 5


def test_fast_init_refuses_classes_it_cannot_copy() -> None:
    with pytest.raises(TypeError, match="does not handle"):
        fast_init(Setup)  # it validates in __post_init__
    with pytest.raises(TypeError, match="does not handle"):
        fast_init(State)  # its logs have default factories
