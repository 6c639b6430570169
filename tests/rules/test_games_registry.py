"""The registry of games (rules/games.py): every game class carries its own identity, the host asks the registry
and not the game's type, and a new game is a package and one `register` line - shown here by registering one."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from flickboard.cli.main import main
from flickboard.core.session import SENSORS, Session
from flickboard.rules import games
from flickboard.rules.base import Illegal, NotationError, SetupError
from flickboard.rules.flicochet import Flicochet
from flickboard.rules.transcript import format_header


@pytest.mark.parametrize("name", list(games.GAMES))
def test_each_game_carries_its_identity(name: str) -> None:
    game = games.GAMES[name]
    assert game.name == name and game.title and game.seeds
    assert games.get(name) is game and all(games.game_name(a) == name for a in game.aliases)
    assert game.default_rules in dict(game.rule_sets())
    assert game.describe(game.default_rules)[0] == game.default_rules
    assert set(game.player_counts(game.default_rules)) <= set(game.players)
    assert set(game.setup_options) <= set(games.SETUP_OPTIONS)
    assert game.sensors in SENSORS, "the host has no mapping for the game's sensors"
    assert game.notation_help.startswith("Enter one input per line") and "undo" in game.keywords
    assert game.log_name in ("shots", "rounds")


def test_the_default_game_and_unknown_names() -> None:
    assert games.get(None).name == games.DEFAULT == "pichenotte"
    assert games.game_name(" Québec ") == "pichenottes-quebec"
    with pytest.raises(games.GameError, match="unknown game 'chess': choose one of pichenotte, pichenottes-quebec"):
        games.get("chess")


def test_player_counts_of_each_rule_set() -> None:
    """What the web page and the bridge ask before they start a game (rules/games.py `player_counts`)."""
    assert games.player_counts("tournament-2019") == games.player_counts("beginner") == (2, 4)
    assert games.player_counts("officiel-17-2") == (2, 4)
    assert games.player_counts("flicochet+double-jack") == (2, 3, 4, 5, 6)  # more than 2 adds the teams layer
    assert games.player_counts("flicochet+teams+school") == (3, 4, 5, 6)  # Team rules: 3 to 6
    assert games.player_counts() == (2, 3, 4, 5, 6)  # any rule set of any game
    assert games.players_said("tournament-2019") == "2 players (singles) or 4 (doubles)"
    assert games.players_said("officiel") == "2 players, or 4 in turn order (partners facing)"
    assert games.players_said("flicochet") == "2 to 6 players"
    with pytest.raises(games.GameError, match="unknown rule set 'croquet'"):
        games.player_counts("croquet")
    for rules in ("tournament-2019", "officiel", "flicochet", "flicochet+teams"):
        for n in range(1, 8):
            made = True
            try:
                games.create(games.find_rules(rules), [f"P{i}" for i in range(n)], rules=rules)
            except games.GameError:
                made = False
            assert made == (n in games.player_counts(rules)), (rules, n)


def test_one_refusal_class_for_every_game() -> None:
    """The session catches one Illegal and one NotationError whatever the game (rules/base.py)."""
    for name, bad_line, illegal_line in (
        ("pichenotte", "shot sideways", "confirm"),
        ("quebec", "shot sideways", "color red"),
        ("flicochet", "flick sideways", "order R"),
    ):
        game = games.create(name, ["Ann", "Bob"])
        with pytest.raises(NotationError):
            game.parse(bad_line)
        with pytest.raises(Illegal):
            game.apply(game.start(), game.parse(illegal_line))
    with pytest.raises(SetupError):
        games.get("quebec").from_header({"Game": ["flicochet"], "Players": ["Ann", "Bob"]})


def test_a_setup_option_of_another_game_is_named() -> None:
    with pytest.raises(games.GameError, match="--target is not an option of Pichenotte"):
        games.create("pichenotte", ["Ann", "Bob"], target=21, teams=["r", "w"])
    with pytest.raises(games.GameError, match="--match is not an option of Québec Pichenottes"):
        games.create("quebec", ["Ann", "Bob"], match="wins:2", teams=["r", "w"])
    with pytest.raises(games.GameError, match="--match is not an option of Flicochet"):
        games.create("flicochet", ["Ann", "Bob"], sides=["X", "Y"], match="wins:2")


# ---------------------------------------------------------------- a new game is a package and one line


@dataclass(frozen=True)
class Tiddly(Flicochet):
    """A stand-in for a new game's package: Flicochet's engine under another name and identity."""

    name: ClassVar[str] = "tiddlywinks"
    title: ClassVar[str] = "Tiddlywinks"
    aliases: ClassVar[tuple[str, ...]] = ("winks",)
    seeds: ClassVar[str] = "a sheet of its own"
    log_name: ClassVar[str] = "rounds"


@pytest.fixture
def tiddly() -> Iterator[None]:
    games.register(Tiddly)  # the one line
    try:
        yield
    finally:
        del games.GAMES[Tiddly.name]
        del games.ALIASES["winks"]


def test_a_registered_game_is_played_listed_resumed_and_exported(tiddly: None, tmp_path: Path) -> None:
    game = games.create("winks", ["Ann", "Bob"], target=3)
    assert isinstance(game, Tiddly) and game.header()["Game"] == ["tiddlywinks"]
    session = Session.create(str(tmp_path / "t.jsonl"), game)
    assert session.submit("flick Ann").accepted
    note = session.record("t1", 1, 1, "pass", {"n": "hole"})
    assert note.accepted and session.fold.notes[-1][1].startswith("Tiddlywinks is scored by hand")
    assert not session.submit("declare").accepted  # a host word only where the sensors take it
    session.close()
    resumed = Session.resume(str(tmp_path / "t.jsonl"))
    assert isinstance(resumed.game, Tiddly) and resumed.fold.entries == 3
    resumed.close()

    out = io.StringIO()
    assert main(["rules", "list", "--game", "winks"], out) == 0
    listed = out.getvalue()
    assert listed.startswith("Tiddlywinks (--game tiddlywinks; from a sheet of its own; default rule set flicochet):")
    transcript = tmp_path / "t.pich"
    transcript.write_text(format_header(game.header()) + "\n\nflick Ann\nflick Bob\n", encoding="utf-8")
    out = io.StringIO()
    assert main(["export", str(transcript), "--json", "-"], out) == 0
    doc = json.loads(out.getvalue())
    assert doc["summary"]["game"] == "flicochet" and doc["rounds"] == []  # the engine's own document; no round ended
