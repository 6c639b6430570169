"""A random but legal Pichenotte match, as a transcript: for bench tests and the simulated board
(`flickboard sim --random-game --seed N`). The same seed gives the same match. The engine stays pure: the
randomness lives here, and every line is checked by the engine before it is kept.

With `sensor_exact=True` every shot's hole and baseline facts are also exactly the ones the bridge makes of the
sensor events they cause (host/sim/board_scenario.py `evidence_exact`), so the game played on the simulated board,
with the other facts typed by hand, gives the same transcript.
"""

from __future__ import annotations

import random

from flickboard.rules.base import Illegal, NotationError
from flickboard.rules.pichenotte import Pichenotte, State
from flickboard.rules.pichenotte.engine import Shot
from flickboard.rules.transcript import format_header
from flickboard.sim.board_scenario import evidence_exact


def _shot_line(rng: random.Random, game: Pichenotte, state: State) -> list[str]:
    """Candidate lines for the next shot, most interesting first; the last one is always plain."""
    kind = state.next_kind()
    seat = state.to_shoot()
    assert seat is not None and state.game is not None
    side = game.setup.side_of(seat)
    opp = game.setup.sides[1 - side]
    own = game.setup.sides[side]
    extra: list[str] = []
    r = rng.random()
    if r < 0.08 and state.game.board[1 - side] > 0:
        extra.append(f"{opp}:ditch")
    elif r < 0.12 and state.game.board[side] > 0:
        extra.append(f"{own}:in")
    if kind == "free":
        base = "shot in" if rng.random() < 0.1 else ("shot zone" if rng.random() < 0.85 else "shot short")
        if game.options.free_shot_zone is None and base != "shot in":
            base = "shot"
    else:
        roll = rng.random()
        if roll < 0.15:
            base = "shot call in" if rng.random() < 0.45 else "shot call"
        elif roll < 0.3:
            base = "shot miss" + (" ditch" if rng.random() < 0.5 else "")
        else:
            base = "shot hit" + (" in" if rng.random() < 0.12 else "") + (" base" if rng.random() < 0.04 else "")
    plain = {"free": "shot zone" if game.options.free_shot_zone else "shot", "contact": "shot hit"}[kind or "contact"]
    return [" ".join([base, *extra]), base, plain]


def _answer(rng: random.Random, game: Pichenotte, state: State) -> list[str]:
    q = state.questions()[0]
    if q.kind == "zones":
        assert state.game is not None
        n = state.game.board[q.side]
        values = [5, 10, 15] + ([25] if game.options.post_values and rng.random() < 0.05 else [])
        return [f"zones {game.setup.sides[q.side]} " + " ".join(str(rng.choice(values)) for _ in range(n))]
    return [rng.choice(q.answers)]


def random_match(
    seed: int,
    rules: str = "tournament-2019",
    players: list[str] | None = None,
    match: str | None = "games:1",
    max_inputs: int = 5000,
    sensor_exact: bool = False,
) -> str:
    """The transcript of a whole random match (default: one game); `sensor_exact`: see the module docstring."""
    rng = random.Random(seed)
    game = Pichenotte.create(rules, players or ["North", "South"], match=match)
    state = game.start()
    lines: list[str] = []
    for _ in range(max_inputs):
        if state.over:
            break
        if state.questions():
            candidates = _answer(rng, game, state)
        elif state.shootout is not None:
            candidates = ["shot in" if rng.random() < 0.4 else "shot miss"]
        else:
            candidates = _shot_line(rng, game, state)
        for text in candidates:
            line = game.parse(text)
            assert line is not None
            if (
                sensor_exact
                and isinstance(line, Shot)
                and state.shootout is None  # shoot-out shots are entered by hand
                and not evidence_exact(game, state, line)
            ):
                continue
            try:
                state = game.apply(state, line).state  # type: ignore[arg-type]
            except (Illegal, NotationError):
                continue
            lines.append(text)
            break
        else:
            raise RuntimeError(f"no legal input found after {lines[-3:]}")  # a bug in this generator
    header = {**game.header(), "Event": [f"random match, seed {seed}"]}
    return format_header(header) + "\n\n" + "\n".join(lines) + "\n"
