"""The engines' cheap state updates (rules/immutable.py) keep value semantics: old states never change."""

from __future__ import annotations

import dataclasses

import pytest

from rules.immutable import Log, evolve
from rules.pichenotte import Pichenotte
from rules.pichenotte.engine import Game, Setup


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
