"""Fixtures for the tournament tests: a director on a fresh journal in the test's folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from flickboard.tournament import Director, dumps, read


@pytest.fixture
def director(tmp_path: Path) -> Iterator[Callable[..., Director]]:
    """`director("A", "B", ...)`: a tournament with these entrants, seeded in that order (seed 1 first). After the
    test, every journal it wrote folds again to the bytes of the event its director held."""
    opened: list[Director] = []

    def make(*names: str, seeded: bool = True, path: str = "event.jsonl") -> Director:
        d = Director.create(str(tmp_path / path), "Club open")
        opened.append(d)
        for i, n in enumerate(names):
            d.add_entrant(n, seed=i + 1 if seeded else None)
        return d

    yield make
    for d in opened:
        d.close()
    for d in opened:
        again = read(d.path)
        if again.count == d.event.count:  # (a test may go on with another director on the same file)
            assert dumps(again) == dumps(d.event), d.path
