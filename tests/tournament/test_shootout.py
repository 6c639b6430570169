"""The standings' twenties shoot-out played and scored by the engine (issue 21; 001 R-1-B: "Ties broken by 20's
shootout of 12 pucks each"; 000 rule 9 "best of 12 pucks for the center hole"). A tie the chain leaves at its
`shootout` key gets shoot-out matches (`shootout-round` acts): two tied, one match; more, every pair once, ranked by
shoot-out wins then shoot-out twenties, and a further round among any still level. They are the stage's matches with
the Pichenotte match format `shootout`: the hall opens them on a board and takes the engine's twenties. The
counts-based `shootout` act of an event played on paper folds as it always did."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flickboard.cli.bridge import start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.rules.pichenotte import Pichenotte
from flickboard.sim.broker import Broker
from flickboard.tournament import ActError, Director, dumps, read
from flickboard.tournament.hall import Hall, board_result, players_of, request_of

Make = Callable[..., Director]
DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]
_SCRIPT = Path(sys.executable).with_name("flickboard")
FLICKBOARD = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flickboard.cli.main"]


def fb(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FLICKBOARD_DEBUG", None)
    return subprocess.run(
        [*FLICKBOARD, "tournament", *args], capture_output=True, text=True, timeout=60, cwd=cwd, env=env
    )


def ok(*args: str, cwd: Path) -> str:
    p = fb(*args, cwd=cwd)
    assert p.returncode == 0 and "Traceback" not in p.stderr, (args, p.stdout, p.stderr)
    return p.stdout


def refused(cwd: Path, journal: str, *args: str) -> str:
    """A command that must be refused: one line, exit 2, the journal's bytes unchanged."""
    before = (cwd / journal).read_bytes()
    p = fb(*args, cwd=cwd)
    assert p.returncode == 2 and "Traceback" not in p.stdout + p.stderr, (args, p.stdout, p.stderr)
    assert len(p.stderr.splitlines()) == 1 and (cwd / journal).read_bytes() == before
    return p.stderr


def until(pred: Callable[[], Any], what: str, timeout: float = 15) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := pred()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
    return got


def _round_robin(d: Director, beats: dict[frozenset[str], str], chain: list[str], match: str = "games:1") -> None:
    d.start_stage("rr", "round-robin", rules="tournament-2019", match=match, tiebreaks=chain)
    for m in list(d.event.stages["rr"].matches.values()):
        w = beats[frozenset(m.sides)]
        d.result(m.id, w, points=[200, 100] if w == m.sides[0] else [100, 200])


def _ranks(d: Director) -> list[tuple[str, int, str | None]]:
    return [(r.entrant, r.rank, r.decided_by) for r in d.event.table(d.event.stages["rr"]).rows]


# A circle: Ana beat Ben, Ben beat Cat, Cat beat Ana; all 200-100. Level on wins, the mini-league and points.
CIRCLE = {frozenset(("Ana", "Ben")): "Ana", frozenset(("Ben", "Cat")): "Ben", frozenset(("Ana", "Cat")): "Cat"}


def test_a_three_way_tie_is_broken_by_a_shootout_round_robin_then_a_further_round(director: Make) -> None:
    """Hand-worked: round 1, every pair once. SO1-1 Ana-Ben 7-5 (Ana), SO1-2 Ana-Cat 4-6 (Cat), SO1-3 Ben-Cat 9-8
    (Ben): one shoot-out win each; twenties Ana 7+4 = 11, Ben 5+9 = 14, Cat 6+8 = 14. Ana is third; Ben and Cat are
    still level, so round 2 is their one match: SO2-1 Ben-Cat 2-3 (Cat). Final: Cat, Ben, Ana."""
    d = director("Ana", "Ben", "Cat")
    _round_robin(d, CIRCLE, ["h2h", "points", "shootout"])
    assert d.event.table(d.event.stages["rr"]).unresolved == [["Ana", "Ben", "Cat"]]
    with pytest.raises(ActError, match="flickboard tournament shootout FILE STAGE"):
        d.start_stage("final", "single-elimination", intake={"from": "rr", "top": 2})
    assert d.shootout_matches("rr") == ["rr/SO1-1", "rr/SO1-2", "rr/SO1-3"]
    st = d.event.stages["rr"]
    assert [d.event.matches[i].sides for i in st.shootout_rounds[0].matches] == [
        ["Ana", "Ben"],
        ["Ana", "Cat"],
        ["Ben", "Cat"],
    ]
    assert all(d.event.matches[i].format == "shootout" for i in st.shootout_rounds[0].matches)
    assert d.shootout_matches("rr") == []  # the round is being played: nothing new
    d.result("rr/SO1-1", "Ana", shootout=[7, 5])
    d.result("rr/SO1-2", "Cat", shootout=[4, 6])
    assert _ranks(d)[0][1] == 1 and all(r[1] == 1 for r in _ranks(d))  # a round counts once all of it is played
    d.result("rr/SO1-3", "Ben", shootout=[9, 8])
    assert _ranks(d) == [("Ben", 1, None), ("Cat", 1, "shootout"), ("Ana", 3, None)]
    with pytest.raises(ActError, match="tied between Ben, Cat"):  # a cut through the tie still waits
        d.start_stage("final", "single-elimination", intake={"from": "rr", "top": 1})
    assert d.shootout_matches("rr") == ["rr/SO2-1"]
    d.result("rr/SO2-1", "Cat", shootout=[2, 3])
    assert _ranks(d) == [("Cat", 1, "shootout"), ("Ben", 2, "shootout"), ("Ana", 3, None)]
    # The shoot-out matches are not the stage's own: wins, points and twenties are those of the round robin.
    assert [(r.wins, r.points_for, r.played) for r in d.event.table(st).rows] == [(1, 300, 2)] * 3
    d.start_stage("final", "single-elimination", intake={"from": "rr", "top": 2})
    assert d.event.stages["final"].entrants == ["Cat", "Ben"]


def test_shootout_rounds_are_refused_until_they_can_be_played(director: Make) -> None:
    d = director("Ana", "Ben", "Cat", "Dee")
    d.start_stage("rr", "round-robin", tiebreaks=["h2h"])
    with pytest.raises(ActError, match="has no shootout"):
        d.act(
            {"act": "shootout-round", "stage": "rr", "round": 1, "entrants": ["Ana", "Ben"], "pairs": [["Ana", "Ben"]]}
        )
    e = director("Ana", "Ben", "Cat", path="e.jsonl")
    e.start_stage("rr", "round-robin", match="games:1")
    first = next(iter(e.event.stages["rr"].matches))
    e.result(first, e.event.matches[first].sides[0])
    with pytest.raises(ActError, match="still has matches to play"):
        e.shootout_matches("rr")
    f = director("Ana", "Ben", "Cat", path="f.jsonl")
    _round_robin(f, CIRCLE, ["shootout"])
    bad = {"act": "shootout-round", "stage": "rr", "round": 1, "entrants": ["Ana", "Ben"], "pairs": [["Ana", "Ben"]]}
    with pytest.raises(ActError, match="among a group still level in stage rr \\(now: Ana, Ben, Cat\\)"):
        f.act(bad)
    with pytest.raises(ActError, match="every two of its entrants once"):
        f.act({**bad, "entrants": ["Ana", "Ben", "Cat"]})
    f.shootout_matches("rr")
    with pytest.raises(ActError, match="is a twenties shoot-out: its result gives both sides' twenties"):
        f.result("rr/SO1-1", "Ana")
    with pytest.raises(ActError, match="the winner's the higher"):
        f.result("rr/SO1-1", "Ana", shootout=[5, 5])
    q = director(path="q.jsonl")
    for n in ("Ana", "Ben", "Cat"):
        q.add_entrant(n)
    q.start_stage("rr", "round-robin", game="quebec")
    for m in list(q.event.stages["rr"].matches.values()):
        q.result(m.id, CIRCLE[frozenset(m.sides)])
    with pytest.raises(ActError, match="plays pichenottes-quebec: a shoot-out match is played on the Pichenotte"):
        q.shootout_matches("rr")
    q.shootout("rr", ["Ana", "Ben", "Cat"], [3, 2, 1])  # on paper: the counts
    assert [r.entrant for r in q.event.table(q.event.stages["rr"]).rows] == ["Ana", "Ben", "Cat"]


def test_a_shootout_played_on_the_engine_to_12_all_then_sudden_death(director: Make) -> None:
    """R-1-B: the board's engine plays the shoot-out match, 12 each, 12-12, then one each: the 13th pair is 1-1, the
    14th 0-1. The board's result (hall.board_result, what the hall appends from the scoreboard) carries the engine's
    twenties in the match's order of sides, and the shoot-out breaks the tie."""
    e = director("Ana", "Ben", "Cat")
    _round_robin(e, CIRCLE, ["shootout"])
    ids = e.shootout_matches("rr")
    m = e.event.matches[ids[0]]
    req = request_of(e.event, m)
    assert req == {"rules": "tournament-2019", "players": ["Ana", "Ben"], "match": "shootout"}
    game = Pichenotte.create(req["rules"], req["players"], match=req["match"])
    state = game.start()
    lines = ["shot in"] * 24 + ["shot in", "shot in", "shot miss", "shot in"]
    for line in lines:
        assert not state.over
        parsed = game.parse(line)
        assert parsed is not None
        state = game.apply(state, parsed).state  # type: ignore[arg-type]
    summary = game.summary(state)
    assert summary["over"] and summary["winner"] == "Ben" and summary["match_shootout"] == [13, 14]
    act = board_result(e.event, m, "t1", {"score": summary, "journal": "journals/t1/so.jsonl"})
    assert act is not None and act["winner"] == "Ben" and act["shootout"] == [13, 14]
    e.act(act)
    assert e.event.matches[m.id].outcome is not None and e.event.matches[m.id].outcome.source == "board"
    e.result(ids[1], "Ana", shootout=[5, 4])
    e.result(ids[2], "Cat", shootout=[3, 6])
    # Wins 1 each; twenties Ana 13+5 = 18, Ben 14+3 = 17, Cat 4+6 = 10.
    assert [(r.entrant, r.rank) for r in e.event.table(e.event.stages["rr"]).rows] == [
        ("Ana", 1),
        ("Ben", 2),
        ("Cat", 3),
    ]


def test_an_old_journal_with_a_counts_shootout_folds_unchanged() -> None:
    """tests/tournament/data/old-shootout.jsonl was written before shoot-out matches existed (a three-way tie
    broken by a shoot-out entered as counts, then a final from the top two); its document, saved then, is the
    document it folds to now, byte for byte."""
    ev = read(str(DATA / "old-shootout.jsonl"))
    assert not ev.rejected
    assert dumps(ev) == (DATA / "old-shootout.dumps").read_bytes()
    assert ev.stages["final"].entrants == ["B", "A"]


def test_the_commands_make_the_shootout_matches_and_take_a_typed_result(tmp_path: Path) -> None:
    ok("new", "e.jsonl", "--name", "Tie night", cwd=tmp_path)
    for name in ("Ana", "Ben", "Cat"):
        ok("add", "e.jsonl", name, cwd=tmp_path)
    ok("start", "e.jsonl", "rr", "--format", "round-robin", "--tiebreaks", "h2h,shootout", cwd=tmp_path)
    ev = read(str(tmp_path / "e.jsonl"))
    for m in ev.stages["rr"].matches.values():
        ok("result", "e.jsonl", m.id, CIRCLE[frozenset(m.sides)], cwd=tmp_path)
    level = [r.entrant for r in read(str(tmp_path / "e.jsonl")).table(ev.stages["rr"]).rows]
    out = ok("standings", "e.jsonl", cwd=tmp_path)
    assert (
        f"{', '.join(level)} still level after the whole chain (a shoot-out decides, and none is made yet: "
        "flickboard tournament shootout e.jsonl rr makes its matches)" in out
    )
    out = ok("shootout", "e.jsonl", "rr", cwd=tmp_path)
    a, b, c = level
    assert out.splitlines() == [
        f"shoot-out round 1 of stage rr, {a}, {b}, {c} (every pair once):",
        "  Match     Entrant      Entrant",
        f"  rr/SO1-1  {a}      vs  {b}",
        f"  rr/SO1-2  {a}      vs  {c}",
        f"  rr/SO1-3  {b}      vs  {c}",
        "Each is a twenties shoot-out on the engine (match format shootout, tournament-2019: 12 pucks each, then one "
        "each until it breaks).",
        "Next: flickboard tournament assign e.jsonl --auto BOARD ... (or a result typed: flickboard tournament result "
        "e.jsonl MATCH WINNER --shootout a-b)",
    ]
    assert ok("shootout", "e.jsonl", "rr", cwd=tmp_path) == (
        "no new shoot-out in stage rr: rr/SO1-1, rr/SO1-2, rr/SO1-3 still to play\n"
    )
    out = ok("standings", "e.jsonl", cwd=tmp_path)
    assert "(awaits its shoot-out, round 1: rr/SO1-1, rr/SO1-2, rr/SO1-3 to play)" in out
    refused(tmp_path, "e.jsonl", "result", "e.jsonl", "rr/SO1-1", a)  # a shoot-out's result needs its twenties
    ok("result", "e.jsonl", "rr/SO1-1", a, "--shootout", "7-5", cwd=tmp_path)
    ok("result", "e.jsonl", "rr/SO1-2", c, "--shootout", "4-6", cwd=tmp_path)
    # 9-2 is no shoot-out's end (it stops at 8-2: Cy could no longer catch Ben), and is refused (R-1-B)
    said = refused(tmp_path, "e.jsonl", "result", "e.jsonl", "rr/SO1-3", b, "--shootout", "9-2")
    assert "cannot end 9-2" in said
    out = ok("result", "e.jsonl", "rr/SO1-3", b, "--shootout", "9-4", cwd=tmp_path)
    out = ok("standings", "e.jsonl", cwd=tmp_path)
    # Wins 1 each; twenties a 11, b 14, c 10.
    assert f"{b} over {a} on the shoot-out (wins 1-1, twenties 14-11); {a} over {c} on the shoot-out (wins 1-1, " \
        "twenties 11-10)." in out  # fmt: skip
    assert ok("shootout", "e.jsonl", "rr", cwd=tmp_path) == "no tie in stage rr awaits a shoot-out\n"
    out = ok("show", "e.jsonl", cwd=tmp_path)
    assert "Next: flickboard tournament start e.jsonl NEXT" in out


def test_the_hall_opens_a_shootout_match_on_a_board_and_takes_the_engines_twenties(
    broker: Broker, tmp_path: Path
) -> None:
    """A two-way tie (Ana and Ben: two wins each, the chain only `shootout`) gets one shoot-out match. The hall opens
    it on a real bridge's board as match format `shootout` (the board starts in the shoot-out, Ana first), the scorer
    types 12 each to 12-12 and one each until Ben breaks it (13-14 after 14 each), and the board's result comes back
    with the engine's twenties: Ben ranks above Ana. Cy and Dee (one win each) get theirs, typed by the organiser."""
    path = str(tmp_path / "open.jsonl")
    beats = {
        frozenset(("Ana", "Ben")): "Ana",
        frozenset(("Ana", "Cy")): "Ana",
        frozenset(("Ana", "Dee")): "Dee",
        frozenset(("Ben", "Cy")): "Ben",
        frozenset(("Ben", "Dee")): "Ben",
        frozenset(("Cy", "Dee")): "Cy",
    }
    with Director.create(path, "Club open") as d:
        for seed, name in enumerate(("Ana", "Ben", "Cy", "Dee"), 1):
            d.add_entrant(name, seed=seed)
        _round_robin(d, beats, ["shootout"])
        assert d.event.table(d.event.stages["rr"]).unresolved == [["Ana", "Ben"], ["Cy", "Dee"]]
        assert d.shootout_matches("rr") == ["rr/SO1-1", "rr/SO2-1"]
    running = start_bridge(
        BridgeConfig(
            mqtt=parse_mqtt_url(broker.url),
            boards=("t1",),
            journals=str(tmp_path / "journals"),
            client_id=f"hall-so-{uuid.uuid4().hex[:8]}",
            bridge_id="room-a",
        )
    )
    bridge = running.bridge
    hall = Hall(path, parse_mqtt_url(broker.url), answer_timeout=5, settle=0.3, say=lambda _: None).start()
    try:
        assert hall.wait_ready(10)
        hall.act({"act": "assign", "match": "rr/SO1-1", "board": "t1"})
        until(lambda: hall.opens.get("rr/SO1-1", {}).get("state") == "opened", "the shoot-out opened on t1")
        score = bridge.scoreboard("t1")["score"]
        assert score["match"] == "shootout" and score["players"] == players_of(
            hall.event, hall.event.matches["rr/SO1-1"]
        )
        assert score["shootout"]["purpose"] == "match" and score["shootout"]["to_shoot"] == "Ana"
        # What the phone page offers (the board's asks): In or Missed, for Ana.
        (ask,) = bridge.scoreboard("t1")["asks"]
        assert ask["kind"] == "shootout" and [c["line"] for c in ask["choices"]] == ["shot in", "shot miss"]
        for line in ["shot in"] * 24 + ["shot in", "shot in", "shot miss", "shot in"]:
            out = bridge.submit("t1", line)
            assert out.accepted, (line, out.message)
        final = bridge.scoreboard("t1")
        assert final["score"]["over"] and final["score"]["match_shootout"] == [13, 14]
        until(lambda: hall.event.matches["rr/SO1-1"].outcome is not None, "the board's shoot-out result")
        o = hall.event.matches["rr/SO1-1"].outcome
        assert o is not None and o.source == "board" and o.winner == "Ben" and o.shootout == (13, 14)
        assert o.evidence is not None and o.evidence["journal"] == final["journal"]
        with hall.director() as organiser:
            organiser.result("rr/SO2-1", "Dee", shootout=[4, 7])
    finally:
        hall.stop()
        running.stop()
    ev = read(path)
    assert not ev.rejected
    rows = ev.table(ev.stages["rr"]).rows
    assert [(r.entrant, r.rank, r.decided_by) for r in rows] == [
        ("Ben", 1, "shootout"),
        ("Ana", 2, "wins"),
        ("Dee", 3, "shootout"),
        ("Cy", 4, None),
    ]


def test_swiss_and_pools_ties_get_their_shootout_matches_and_undo_takes_a_round_back(director: Make) -> None:
    """Swiss, 4 entrants, 2 rounds, the first-named always winning: B and C end on one win each, level (the chain is
    only `shootout`): one shoot-out match, SO1-1 B-C 2-3, puts C second. Pools: each pool of three in a circle gets
    its own round robin of shoot-outs (SO1 for pool 1, SO2 for pool 2)."""
    d = director("A", "B", "C", "D")
    d.start_stage("sw", "swiss", options={"rounds": 2}, tiebreaks=["shootout"])
    for _ in range(2):
        d.pair_round("sw")
        for mid in d.event.stages["sw"].rounds[-1]:
            d.result(mid, d.event.matches[mid].sides[0])
    st = d.event.stages["sw"]
    assert d.event.table(st).unresolved == [["B", "C"]]
    assert d.shootout_matches("sw") == ["sw/SO1-1"]
    d.undo()  # the round is taken back: its match is gone, the tie awaits a shoot-out again
    assert "sw/SO1-1" not in d.event.matches and not d.event.stages["sw"].shootout_rounds
    assert d.shootout_matches("sw") == ["sw/SO1-1"]
    d.result("sw/SO1-1", "C", shootout=[2, 3])
    st = d.event.stages["sw"]
    assert [(r.entrant, r.rank) for r in d.event.table(st).rows] == [("A", 1), ("C", 2), ("B", 3), ("D", 4)]
    d.start_stage("f", "single-elimination", intake={"from": "sw", "top": 2})
    assert d.event.stages["f"].entrants == ["A", "C"]
    p = director("A", "B", "C", "D", "E", "F", path="p.jsonl")
    p.start_stage("pools", "pools", options={"pools": 2}, tiebreaks=["shootout"])
    ps = p.event.stages["pools"]
    for m in list(ps.matches.values()):
        p.result(m.id, m.sides[0])
    assert [p.event.table(ps, k).unresolved for k in range(2)] == [[ps.pools[0]], [ps.pools[1]]]
    ids = p.shootout_matches("pools")
    assert ids == [f"pools/SO{r}-{k}" for r in (1, 2) for k in (1, 2, 3)]
    assert [list(r.entrants) for r in ps.shootout_rounds] == ps.pools


def test_a_malformed_shootout_round_is_refused_in_one_sentence(director: Make) -> None:
    d = director("Ana", "Ben", "Cat")
    _round_robin(d, CIRCLE, ["shootout"])
    for bad in ([{"x": 1}, "Ana"], "Ana", None, [["Ana"], ["Ben"]]):
        with pytest.raises(ActError, match="lists its entrants by name"):
            d.act({"act": "shootout-round", "stage": "rr", "round": 1, "entrants": bad, "pairs": []})
    with pytest.raises(ActError, match="the next shoot-out round of stage rr is round 1"):
        d.act({"act": "shootout-round", "stage": "rr", "round": 2, "entrants": ["Ana", "Ben", "Cat"], "pairs": []})
