"""Québec Pichenottes (seed 003) and Flicochet (seed 004) through the product, not just their engines: the
`flickboard` commands as a user runs them, the journal and resume, transcripts and their headers, the bundled
worked examples, the pocket sensors of a Québec board, and the bridge that publishes the scoreboards.

The engines' own rules are proved in tests/rules/test_rules_quebec.py and tests/rules/test_rules_flicochet.py; here each
test names the rule its expectation comes from where one decides it.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.cli.files import SAMPLES, sample_path
from flickboard.cli.main import main
from flickboard.core import journal
from flickboard.core.scoreboard import PROMPT_MOMENTS, final_line, moment_text, moments
from flickboard.core.session import Session, fold_entries
from flickboard.rules import games
from flickboard.rules.transcript import format_header, parse_transcript

ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("flickboard")
FLICKBOARD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flickboard.cli.main"]
from fb import proto  # noqa: E402  (the firmware's own encoder: board lines exactly as a board writes them)


def run(*args: str, stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FLICKBOARD_DEBUG", None)
    return subprocess.run(
        [*FLICKBOARD, *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd or ROOT, env=env
    )


def replay_json(path: Path | str) -> dict[str, Any]:
    out = io.StringIO()
    assert main(["replay", "--json", str(path)], out) == 0
    doc: dict[str, Any] = json.loads(out.getvalue())
    return doc


ALL_RED = "shot " + " ".join(["red"] * 11)


# ---------------------------------------------------------------- play, resume, replay, export


def test_play_quebec_by_hand_resume_and_replay(tmp_path: Path) -> None:
    path = tmp_path / "partie.jsonl"
    first = "shot red\nshot green\nshot none\nshot c5 green\nbogus words\nquit\n"
    p = run(
        "play", "--game", "quebec", "--players", "Ann", "Bob", "--target", "9", "--journal", str(path), "--lang", "en",
        stdin=first,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stdout + p.stderr
    assert "Québec Pichenottes · officiel" in p.stdout
    assert "Ann to shoot" in p.stdout  # the prompt says whose shot it is
    assert "Ann plays red (règle 10: the first dame pocketed gives the colour)" in p.stdout
    assert "refused [5]" in p.stdout and "(type 'help' for the notation)" in p.stdout
    # Ann's green stopped her (règle 17.1), Bob pocketed nothing, Ann's c5 with a green went back (règle 14):
    # Bob is to play when the partie is resumed.
    p = run("play", "--resume", str(path), "--lang", "en", stdin=f"shot green\nshot none\n{ALL_RED}\nshot none\n")
    assert p.returncode == 0, p.stderr
    assert "Resumed" in p.stdout and "5 entries replayed (1 refused)" in p.stdout
    assert "Bob to shoot" in p.stdout
    doc = replay_json(path)
    # Ann's twelve reds end the manche: 9 greens are left, 1 point each (règle 12), and 9 reaches the target.
    assert doc["game"] == "pichenottes-quebec" and doc["over"] and doc["totals"] == [9, 0]
    # The same lines as a transcript score the same: the journal is the truth, and it is a plain fold.
    t = tmp_path / "partie.pich"
    out = io.StringIO()
    assert main(["export", str(path), "--transcript", "-"], out) == 0
    t.write_text(out.getvalue())
    again = replay_json(t)
    assert {k: v for k, v in again.items() if k != "rejected_inputs"} == {
        k: v for k, v in doc.items() if k != "rejected_inputs"
    }
    out = io.StringIO()
    assert main(["export", str(path), "--csv", "-"], out) == 0
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["player"] for r in rows[:3]] == ["Ann", "Ann", "Bob"]
    assert rows[1]["stops"] == "17.1"


def test_play_flicochet_with_teams_and_the_team_layer(tmp_path: Path) -> None:
    path = tmp_path / "flico.jsonl"
    lines = ["flick"] * 12 + ["order W R R", "quit"]
    p = run(
        "play", "--game", "flicochet", "--players", "Ann", "Bob", "Cat", "Dan",
        "--teams", "red", "red", "white", "white", "--rules", "flicochet+school", "--journal", str(path),
        stdin="\n".join(lines) + "\n",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "Flicochet · flicochet+school+teams" in p.stdout  # more than 2 players adds the Team rules layer
    assert "ROUND 1 OVER: red 0, white 1" in p.stdout  # PLAYING 3: one white disc closer than red's best
    doc = replay_json(path)
    assert doc["sides"] == [{"name": "red", "players": ["Ann", "Bob"]}, {"name": "white", "players": ["Cat", "Dan"]}]
    assert doc["totals"] == [0, 1] and doc["current"]["start"] == "white"  # PLAYING 4: more points starts


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("play", "--game", "chess", "--players", "A", "B"), "unknown game 'chess'"),
        # a Québec partie is said in French from its first line (docs/translating.md), its set-up's refusals too
        (("play", "--game", "quebec", "--players", "A", "B", "--match", "wins:2"), "--match n'est pas une option"),
        (("play", "--game", "quebec", "--players", "A", "B", "--match", "wins:2", "--lang", "en"), "--match is not an"),
        (("play", "--game", "flicochet", "--players", "A", "B", "--sides", "X", "Y"), "--sides is not an option"),
        (("play", "--game", "flicochet"), "2 to 6"),
        (("play", "--game", "flicochet", "--players", "A", "B", "--teams", "red", "blue"), "'blue' is not a team"),
        (("play", "--game", "quebec", "--players", "A", "B", "C"), "give 2 players, or 4"),
        (("play", "--game", "quebec", "--players", "A", "B", "--target", "x"), "not a number of points"),
        (("rules", "show", "officiel-18"), "unknown rule set 'officiel-18'"),
        (("rules", "list", "--game", "go"), "unknown game 'go'"),
        (("replay", "--sample", "chess"), "unknown game 'chess'"),
    ],
)
def test_bad_set_ups_are_one_line(args: tuple[str, ...], says: str, tmp_path: Path) -> None:
    p = run(*args, cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "Traceback" not in p.stderr and len(p.stderr.splitlines()) == 1, p.stderr
    assert says in p.stderr, p.stderr


def test_rules_show_finds_the_game_of_a_rule_set() -> None:
    out = io.StringIO()
    assert main(["rules", "show", "officiel-17-2", "--lang", "en"], out) == 0
    assert out.getvalue().startswith("Québec Pichenottes · officiel-17-2")
    assert "règle 17.2 read literally" in out.getvalue()
    out = io.StringIO()
    assert main(["rules", "show", "flicochet+double-jack"], out) == 0
    assert "DOUBLE-JACK 4" in out.getvalue()


# ---------------------------------------------------------------- transcripts


@pytest.mark.parametrize(
    "game",
    [
        games.create("pichenotte", ["Ana", "Ben", "Cy", "Di"], rules="santa-fe-2018", match="wins:2", first="Cy"),
        games.create("quebec", ["Ann", "Bob"], rules="officiel-17-2", target=21, first="Bob"),
        games.create("flicochet", ["Ann", "Bob", "Cat"], rules="flicochet+target", target=9, teams=["w", "r", "w"]),
        games.create("flicochet", ["Ann", "Bob"], rules="flicochet+double-jack", first="Bob"),
    ],
    ids=["pichenotte", "quebec", "flicochet-teams", "flicochet-double-jack"],
)
def test_a_header_survives_the_transcript(game: games.AnyGame) -> None:
    """What `export --transcript` writes, a transcript reader reads back as the same game (every tag)."""
    text = format_header(game.header()) + "\n"
    back = games.from_header(parse_transcript(text).header)
    assert back == game


def test_the_bundled_worked_examples() -> None:
    """host/samples/*.pich are the worked examples of docs/transcript.md; each comment there states the result."""
    assert set(SAMPLES) == set(games.GAMES)
    q = replay_json(sample_path("quebec"))
    # Manche 1: Ann pockets her 12 reds; 9 greens are left and her c5 is good: 14 (règles 12, 4, 11).
    # Manche 2: Bob, breaking (règle 7), pockets his 12 greens; 12 reds left + c10: 22 and the partie (règle 6).
    assert [r["points"] for r in q["rounds"]] == [[14, 0], [0, 22]]
    assert [r["breaker"] for r in q["rounds"]] == ["Ann", "Bob"]
    assert q["over"] and q["winner"] == "Bob" and q["rejected_inputs"] == 0
    f = replay_json(sample_path("flicochet"))
    # Round 1: two red discs closer than white's best: red 2 (PLAYING 3). Round 2: white knocks the jack off: +3
    # to red (penalty rule), and red reaches 5, the Target tag's points.
    assert [r["points"] for r in f["rounds"]] == [[2, 0], [3, 0]]
    assert f["rounds"][1]["ended"] == "jack" and f["rounds"][1]["penalties"] == [3, 0]
    assert f["over"] and f["winner"] == "red" and f["target"] == 5
    out = io.StringIO()
    assert main(["replay", "--sample", "flicochet"], out) == 0
    assert "Game over: red wins 5-0." in out.getvalue()


# ---------------------------------------------------------------- sensors


def quebec_session(tmp_path: Path) -> Session:
    return Session.create(str(tmp_path / "q.jsonl"), games.create("quebec", ["Ann", "Bob"]))


def test_a_pocket_beam_is_evidence_the_scorer_must_name(tmp_path: Path) -> None:
    s = quebec_session(tmp_path)
    out = s.record("qb", 1, 1, "pass", {"n": "pocket2", "dur_us": 4000})
    assert out.accepted and s.summary()["current"]["pocket_evidence"] == [2]
    assert [q["kind"] for q in s.summary()["questions"]] == ["identify"]
    before = s.summary()
    refused = s.submit("shot red")  # the beam saw a piece in pocket 2: the line must name it
    assert not refused.accepted and "pocket 2" in refused.message
    assert {k: v for k, v in s.summary().items() if k != "rejected_inputs"} == {
        k: v for k, v in before.items() if k != "rejected_inputs"
    }
    assert s.submit("shot red@2").accepted
    assert s.summary()["current"]["pocket_evidence"] == [] and s.summary()["current"]["colours"] == ["red", "green"]
    # A stuck pocket beam, or a board that lost events: a needs-review hold, cleared by a person.
    s.record("qb", 1, 2, "stuck", {"n": "pocket3", "ms": 3000})
    assert s.fold.review and "pocket 3" in s.fold.review[0][1]
    s.record("qb", 1, 3, "pass", {"n": "pocket1", "dur_us": 4000})
    assert s.fold.queue, "events wait behind a review"
    assert s.submit("reviewed took the dame out").accepted
    assert s.fold.review == [] and s.summary()["current"]["pocket_evidence"] == [1]
    # Beams a Québec board does not have are said, and change nothing.
    score = s.summary()
    note = s.record("qb", 1, 4, "pass", {"n": "hole", "dur_us": 4000})
    assert "scores pockets only" in s.fold.notes[-1][1] and note.accepted and s.summary() == score
    s.record("qb", 1, 5, "pass", {"n": "pocket7", "dur_us": 4000})
    assert "names no pocket" in s.fold.review[-1][1]
    # The journal is the truth: a resumed session folds the board events to the same place.
    path = s.journal.path
    s.close()
    again = Session.resume(path)
    assert again.summary() == score and again.fold.review == [(len(again.journal.records), again.fold.review[0][1])]
    again.close()


def test_flicochet_is_scored_by_hand_and_says_so_to_a_board(tmp_path: Path) -> None:
    s = Session.create(str(tmp_path / "f.jsonl"), games.create("flicochet", ["Ann", "Bob"]))
    before = s.summary()
    out = s.record("fb", 1, 1, "pass", {"n": "hole", "dur_us": 4000})
    assert out.accepted and s.summary() == before
    assert "scored by hand" in s.fold.notes[-1][1]
    s.close()


# ---------------------------------------------------------------- the bridge


class Bus:
    def __init__(self) -> None:
        self.msgs: list[tuple[str, Any]] = []

    def __call__(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        self.msgs.append((topic, json.loads(payload)))

    def last(self, topic: str) -> Any:
        return [m for t, m in self.msgs if t == topic][-1]

    def all(self, topic: str) -> list[Any]:
        return [m for t, m in self.msgs if t == topic]


def ask(bridge: Bridge, board: str, req: dict[str, Any]) -> dict[str, Any]:
    return bridge.mqtt_input(board, json.dumps(req).encode())


def test_the_bridge_runs_a_quebec_partie_with_pocket_sensors(tmp_path: Path) -> None:
    bus = Bus()
    bridge = Bridge(tmp_path / "journals", GameSetup("tournament-2019", ("Ana", "Ben")), None, bus)
    new = ask(bridge, "qb", {"id": 1, "new": {"rules": "officiel", "players": ["Ann", "Bob"], "target": 12}})
    assert new["ok"] and new["message"].startswith("new Québec Pichenottes game: "), new
    doc = bus.last("flickboard/qb/scoreboard")
    assert doc["score"]["game"] == "pichenottes-quebec" and doc["score"]["target"] == 12
    assert doc["open_shot"] is None and doc["checks"] == []
    # The board's pocket beam: journaled before the ack, then it is evidence on the scoreboard.
    enc = proto.Encoder("qb", 3, 0)
    sent: list[dict[str, Any]] = []
    line = enc.event("pass", "pocket4", 1000, {"dur_us": 5000})
    bridge.serial_line("/dev/ttyX", line, lambda reply: sent.append(json.loads(reply.strip().split("|")[1])))
    assert [c["s"] for c in sent if c["c"] == "ack"] == [1]
    assert bus.last("flickboard/qb/scoreboard")["score"]["current"]["pocket_evidence"] == [4]
    assert ask(bridge, "qb", {"id": 2, "line": "shot red@4"})["ok"]
    assert ask(bridge, "qb", {"id": 3, "line": ALL_RED})["ok"]
    assert ask(bridge, "qb", {"id": 4, "line": "shot none"})["ok"]
    score = bus.last("flickboard/qb/scoreboard")["score"]
    assert score["over"] and score["winner"] == "Ann" and score["totals"] == [12, 0]  # règle 12: 12 greens left
    texts = [moment_text(m) for m in bus.all("flickboard/qb/events")]
    assert (
        "Ann plays red (règle 10: the first dame pocketed gives the colour)" in texts
        and "GAME OVER: Ann wins, 12-0" in texts
    )
    assert "MANCHE 1 OVER: 12-0" in texts
    assert final_line(bus.last("flickboard/qb/scoreboard")) == "Ann 12 - Bob 0 (Ann wins the game)"


def test_the_bridge_starts_flicochet_and_refuses_what_does_not_fit(tmp_path: Path) -> None:
    bus = Bus()
    bridge = Bridge(tmp_path / "journals", GameSetup("flicochet+double-jack", ("Ann", "Bob", "Cat")), ("fl",), bus)
    assert ask(bridge, "fl", {"id": 1, "line": "flick"})["ok"]
    score = bus.last("flickboard/fl/scoreboard")["score"]
    assert score["game"] == "flicochet" and score["jacks"] == 2 and score["target"] == 12  # DOUBLE-JACK 1, 3
    before = bus.last("flickboard/fl/scoreboard")["score"]
    for req, why in [
        ({"new": {"rules": "officiel", "players": ["A", "B"], "match": "wins:2"}}, "not an option of Québec"),
        ({"new": {"rules": "flicochet", "players": ["A"]}}, "2 to 6"),
        ({"new": {"rules": "croquet", "players": ["A", "B"]}}, "unknown rule set"),
        ({"new": {"rules": "officiel", "players": ["A", "B"], "target": [31]}}, '"target" must be a string'),
        ({"line": "flick at 3"}, "proximity rule"),
    ]:
        res = ask(bridge, "fl", req)
        assert not res["ok"] and why in res["message"], (req, res)
        assert "\n" not in res["message"]
    after = bus.last("flickboard/fl/scoreboard")["score"]
    assert after["current"] == before["current"] and after["totals"] == before["totals"]
    assert after["rejected_inputs"] == 1  # the proximity refusal is journaled; the bad set-ups never start


def test_every_prompt_moment_of_the_new_games_reads_as_a_line(tmp_path: Path) -> None:
    """Each moment the two engines emit for the scorer's prompt has a line in the one vocabulary."""
    q = Session.create(str(tmp_path / "q.jsonl"), games.create("quebec", ["Ann", "Bob"], target=5))
    f = Session.create(str(tmp_path / "f.jsonl"), games.create("flicochet", ["Ann", "Bob"], rules="flicochet+school"))
    seen: set[str] = set()
    plays = [
        (q, ["shot red green", "color red", "shot red c5", "shot green", "foul", ALL_RED[:-4], "shot none"]),
        (f, ["flick", "flick", "off red", "jack off"]),
    ]
    for s, lines in plays:
        for line in lines:
            out = s.submit(line)
            assert out.accepted, (line, out.message)
            for m in moments("b", s.game, out):
                if m["type"] in PROMPT_MOMENTS:
                    assert moment_text(m), m
                    seen.add(m["type"])
        s.close()
    assert {"colour", "compteuse", "turn-end", "manche-over", "game-over", "off", "jack-off", "round-over"} <= seen


# ---------------------------------------------------------------- properties

QUEBEC_WORDS = ["shot", "shot none", "shot red", "shot green", "shot c5", "shot c10 red", "shot chien", "color red"]
QUEBEC_WORDS += ["shot red off green", "foul", "undo", "correct 1 shot green", "pocket 2", "shot red@2", "reviewed"]
FLICO_WORDS = ["flick", "flick at 9", "flick at 2", "off red", "off white", "jack off", "order R W", "order none"]
FLICO_WORDS += ["order W R R W", "dist R 12 W 20.5", "undo", "correct 2 flick", "place", "bogus"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kind=st.sampled_from(["quebec", "flicochet"]),
    picks=st.lists(st.integers(min_value=0, max_value=14), min_size=1, max_size=40),
)
def test_a_journal_replays_to_the_same_game_and_refusals_change_nothing(
    tmp_path: Path, kind: str, picks: list[int]
) -> None:
    words = QUEBEC_WORDS if kind == "quebec" else FLICO_WORDS
    lines = [words[i % len(words)] for i in picks]
    game = games.create(kind, ["Ann", "Bob"], rules="flicochet+school" if kind == "flicochet" else None)
    path = tmp_path / f"{kind}-{len(list(tmp_path.iterdir()))}.jsonl"
    s = Session.create(str(path), game)
    for line in lines:
        before = s.summary()
        out = s.submit(line)
        if not out.accepted:
            assert "\n" not in out.message and out.message
            after = s.summary()
            assert after["rejected_inputs"] == before["rejected_inputs"] + 1
            assert {k: v for k, v in after.items() if k != "rejected_inputs"} == {
                k: v for k, v in before.items() if k != "rejected_inputs"
            }
    final = s.summary()
    s.close()
    resumed = Session.resume(str(path))
    assert resumed.summary() == final
    resumed.close()
    folded = fold_entries(game, [(i, line, "manual") for i, line in enumerate(lines, 1)])
    assert game.summary(folded.state, len(folded.rejected)) == final
    assert journal.read(str(path)).torn_bytes == 0


def test_a_simulated_pocket_board_feeds_a_quebec_partie(tmp_path: Path) -> None:
    """The real firmware under MicroPython with the pocket board's profile (hardware/profiles/pico_w_pockets.json):
    its beam passes, as the bridge reads them off the wire, become pocket evidence; a glitch shorter than the
    filter is never an event."""
    scenario = {
        "profile": "pico_w_pockets",
        "board_id": "qb1",
        "events": [
            {"at_ms": 100, "beam": "pocket2", "dur_us": 6000},
            {"at_ms": 300, "beam": "pocket3", "dur_us": 50},  # a glitch: below min_pulse_us
            {"at_ms": 500, "beam": "pocket3", "dur_us": 4000},
        ],
        "end_ms": 1200,
    }
    path = tmp_path / "pockets.json"
    path.write_text(json.dumps(scenario))
    p = run("sim", str(path), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    bus = Bus()
    bridge = Bridge(tmp_path / "journals", GameSetup("officiel", ("Ann", "Bob")), None, bus)
    for line in p.stdout.splitlines():
        bridge.serial_line("/dev/ttyX", line, lambda reply: None)
    doc = bus.last("flickboard/qb1/scoreboard")
    assert doc["score"]["game"] == "pichenottes-quebec"
    assert doc["score"]["current"]["pocket_evidence"] == [2, 3]
    assert doc["board_link"]["via"] == "serial /dev/ttyX" and not doc["needs_review"]
    assert ask(bridge, "qb1", {"line": "shot red@2 green@3"})["ok"]
    assert bus.last("flickboard/qb1/scoreboard")["score"]["current"]["pocket_evidence"] == []


@pytest.mark.parametrize(("section", "kind"), [("## Québec Pichenottes", "quebec"), ("## Flicochet", "flicochet")])
def test_every_line_docs_transcript_shows_is_read_by_the_notation(section: str, kind: str) -> None:
    """docs/transcript.md's examples for the game are lines its notation reads (names: Ann, Bob)."""
    text = (ROOT / "docs" / "transcript.md").read_text(encoding="utf-8")
    part = text.split(section, 1)[1].split("\n## ", 1)[0]
    blocks = part.split("```")[1::2]
    lines = [ln.split("#")[0].strip() for b in blocks for ln in b.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("[")]
    assert len(lines) >= 8
    game = games.create(kind, ["Ann", "Bob"], rules="flicochet+double-jack+target" if kind == "flicochet" else None)
    for line in lines:
        for alt in line.split(" | "):  # `place | place off`: two lines in one row
            assert game.parse(alt) is not None, alt
