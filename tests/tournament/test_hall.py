"""The hall (host/tournament/hall.py) against a live Mosquitto and a real bridge in-process with its MQTT link: an
assigned match is opened on its board through the checked entry path (the board's scoreboard shows who plays), the
board's finished match comes back as a `result` act with its journal as evidence, a restart (the same retained
scoreboard again) appends nothing, an organiser's result that disagrees is held and not overwritten (until the
organiser's correction agrees), a refused open is counted, kept with its reason and time (also after a restart) and
sends the match back to waiting for a board, and a request whose answer was lost in a restart is recognised on the
board's scoreboard. A board with a game in progress that is not one of the tournament's matches keeps it until the
game ends or the organiser abandons it. A few seconds each: the whole simulated event is in `make soak`
(tests/support/tournament_soak.py)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from tournament_rig import spoil_journals

from flickboard.cli.bridge import Running, start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.core import journal
from flickboard.rules import games
from flickboard.sim.broker import Broker
from flickboard.sim.random_game import random_match
from flickboard.tournament import ActError, Director, read
from flickboard.tournament.hall import MAX_STALE, Hall, players_of


def until(pred: Callable[[], Any], what: str, timeout: float = 15) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def play(bridge: Any, board: str, players: list[str], seed: int) -> dict[str, Any]:
    """A whole random legal match typed on the board, as its scorer would; the board's final scoreboard."""
    text = random_match(seed, "tournament-2019", players, match="games:1")
    for line in (ln for ln in text.splitlines() if ln and not ln.startswith("[")):
        out = bridge.submit(board, line)
        assert out.accepted, (line, out.message)
    doc: dict[str, Any] = bridge.scoreboard(board)
    assert doc["score"]["over"]
    return doc


def room_bridge(url: Any, tmp_path: Path, boards: tuple[str, ...], bridge_id: str) -> Running:
    """A bridge (in this process) that keeps `boards`, its journals under tmp_path."""
    client_id = f"hall-test-{uuid.uuid4().hex[:8]}"
    journals = str(tmp_path / "journals")
    config = BridgeConfig(mqtt=url, boards=boards, journals=journals, client_id=client_id, bridge_id=bridge_id)
    return start_bridge(config)


def results_of(path: str, match: str) -> list[dict[str, Any]]:
    return [r for _, r in read(path).applied if r["act"] in ("result", "correct") and r["match"] == match]


def test_the_hall_opens_matches_on_the_boards_and_takes_their_results(broker: Broker, tmp_path: Path) -> None:
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Club open") as d:
        for name in ("Ana Costa", "Ben", "Zoé Lévesque", "Marie-Claire O'Neil"):
            d.add_entrant(name)
        d.start_stage("rr", "round-robin", match="games:1")
        matches = list(d.event.matches.values())
    good = [m.id for m in matches]
    bad = good.pop()  # refused by board t9, whose bridge can start no journal for it
    m1, m2 = good[0], good[1]
    running = room_bridge(parse_mqtt_url(broker.url), tmp_path, ("t1", "t2", "t9"), "room-a")
    bridge = running.bridge
    said: list[str] = []
    url = parse_mqtt_url(broker.url)
    hall = Hall(path, url, answer_timeout=5, settle=0.3, say=said.append).start()
    try:
        assert hall.wait_ready(10)
        # 1. Assigned: the board opens the match; its scoreboard (the TV) shows who plays.
        hall.act({"act": "assign", "match": m1, "board": "t1"})
        want = players_of(hall.event, hall.event.matches[m1])
        until(lambda: hall.opens.get(m1, {}).get("state") == "opened", "the match opened on t1")
        doc = bridge.scoreboard("t1")
        assert doc["score"]["players"] == want and not doc["score"]["over"]
        assert hall.opens[m1]["journal"] == doc["journal"]
        assert any(line.startswith(f"opened: {m1} on t1") for line in said)
        # 2. Played by entries: the result comes back by itself, with the game journal as evidence.
        final = play(bridge, "t1", want, seed=3)
        until(lambda: hall.event.matches[m1].outcome is not None, "the board's result")
        o = hall.event.matches[m1].outcome
        assert o is not None and o.source == "board"
        assert o.evidence == {
            "journal": final["journal"],
            "entries": final["entries"],
            "board": "t1",
            "bridge": "room-a",
        }
        side = {n: i for i, n in enumerate(s["name"] for s in final["score"]["sides"])}
        a, b = hall.event.matches[m1].sides
        assert o.winner == final["score"]["winner"]
        assert o.points == (final["score"]["totals"][side[a]], final["score"]["totals"][side[b]])
        assert o.confirmed and o.twenties is not None  # typed by hand, nothing provisional: the journal says so
        entries = read(path).count
        # 3. A restart: the same retained scoreboard comes again, and nothing is appended.
        hall.stop()
        hall = Hall(path, url, answer_timeout=5, settle=0.3, say=said.append).start()
        until(lambda: hall.counts["agreed"] >= 1, "the retained scoreboard seen again")
        time.sleep(0.5)
        assert read(path).count == entries and len(results_of(path, m1)) == 1
        assert hall.counts["results"] == 0 and hall.counts["requests"] == 0  # m1 was opened already: not again
        # 4. The organiser types another result first: the board's is held, never written over it.
        hall.act({"act": "assign", "match": m2, "board": "t2"})
        until(lambda: hall.opens.get(m2, {}).get("state") == "opened", "the match opened on t2")
        m = hall.event.matches[m2]
        with Director.open(path) as organiser:  # another command, while the hall runs
            organiser.result(m2, m.sides[1], points=[1, 2], source="organiser")
        play(bridge, "t2", players_of(hall.event, m), seed=5)
        until(lambda: hall.held, "the board's result held")
        (h,) = hall.held
        assert h["match"] == m2 and h["board"] == "t2" and h["recorded"]["source"] == "organiser"
        assert [r["source"] for r in results_of(path, m2)] == ["organiser"]
        assert sum(line.startswith(f"held for the organiser: {m2}") for line in said) == 1
        board_says = h["result"]
        with Director.open(path) as organiser:  # the organiser checks the card and takes the board's result
            organiser.result(m2, board_says["winner"], points=board_says["points"], games=board_says["games"],
                             twenties=board_says["twenties"], correct=True, reason="the board was right")  # fmt: skip
        until(lambda: not hall.held, "the hold cleared by the correction")
        # 5. A refused open: t9's bridge can start no journal for it (its folder became a file, as on a disk gone
        # wrong). Logged in one line, counted, kept with its reason and time, and the match is back to waiting for a
        # board (an `unassign` act with the reason); t9's old scoreboard is not its result.
        spoil_journals(tmp_path / "journals", "t9")
        t9 = bridge.scoreboard("t9")["journal"]
        before = time.time()
        hall.act({"act": "assign", "match": bad, "board": "t9"})
        until(lambda: hall.opens.get(bad, {}).get("state") == "refused", "the refusal")
        why = f"board t9: cannot start a journal in {tmp_path / 'journals' / 't9'}: "  # the bridge's own words
        assert hall.counts["refused"] == 1 and why in hall.opens[bad]["message"]
        assert [line for line in said if line.startswith(f"not opened: {bad} on t9") and "back to waiting" in line]
        until(lambda: read(path).matches[bad].board is None, "the refused match back to waiting for a board")
        (unassigned,) = [r for _, r in read(path).applied if r["act"] == "unassign"]
        assert unassigned["match"] == bad and unassigned["reason"].startswith(f"board t9 refused it: {why}")
        (refusal,) = hall.refusals
        assert refusal["match"] == bad and refusal["board"] == "t9" and why in refusal["reason"]
        assert before <= refusal["at"] <= time.time()
        hall.act({"act": "assign", "match": bad, "board": "t9"})  # assigned again: sent again, refused again
        until(lambda: hall.counts["refused"] == 2, "the second refusal")
        until(lambda: read(path).matches[bad].board is None, "back to waiting again")
        assert hall.event.matches[bad].outcome is None and bridge.scoreboard("t9")["journal"] == t9
        # 6. Killed between its request and the answer: on restart the board's new journal, with the match's players
        # and not the one the board showed before the request, is recognised as the match's; nothing is sent again.
        hall.stop()
        m3 = good[2]
        with Director.open(path) as organiser:
            n = organiser.assign(m3, "t2")
            new = {"rules": "tournament-2019", "players": players_of(organiser.event, organiser.event.matches[m3]),
                   "match": "games:1"}  # fmt: skip
        before = bridge.scoreboard("t2")["journal"]
        with journal.Journal.open(path + ".hall") as side:  # what the hall wrote before it sent the request
            side.append({"hall": "open", "match": m3, "board": "t2", "id": "lost", "assign": n, "prior": before})
        assert bridge.mqtt_input("t2", json.dumps({"id": "lost", "new": new}).encode())["ok"]  # its answer unheard
        hall = Hall(path, url, answer_timeout=5, settle=0.3, say=said.append).start()
        assert [(r["match"], r["board"]) for r in hall.refusals] == [(bad, "t9")] * 2  # kept across the restart
        until(lambda: hall.opens[m3]["state"] == "opened", "the open recognised")
        assert hall.opens[m3]["journal"] == bridge.scoreboard("t2")["journal"] != before
        play(bridge, "t2", new["players"], seed=7)
        until(lambda: hall.event.matches[m3].outcome is not None, "the result of the recognised match")
        assert hall.counts["requests"] == 0 and len(results_of(path, m3)) == 1
    finally:
        hall.stop()
        running.stop()
    assert not read(path).rejected


# A whole Québec partie to 14 (seed 003, règle 6: the first to the target wins) and a whole Flicochet game to 2: the
# first side's player breaks or starts; each ends with the other side's win (Québec: 17-0 after manche 1) or the
# first's (Flicochet: red's two discs closest, 2-0).
QUEBEC_PARTIE = ["shot", "color red", "shot red", "shot c5", "shot " + " ".join(["red"] * 11), "shot none"]
OTHER_GAMES = {
    "quebec": ("14", QUEBEC_PARTIE, 1, (0, 17)),
    "flicochet": ("2", [*["flick"] * 12, "order R R W"], 0, (2, 0)),
}


def a_stage_of(game: str, board: str, bridge: Any, url: Any, folder: Path) -> None:
    """A two-entrant round robin of `game` on `board`: opened by the hall, played by entries, reported by the board."""
    target, lines, winner, points = OTHER_GAMES[game]
    path = str(folder / f"{game}.jsonl")
    with Director.create(path, f"{game} night") as d:
        d.add_entrant("Ana")
        d.add_entrant("Ben")
        d.start_stage("rr", "round-robin", game=game, match=target)
        (m,) = d.event.matches.values()
    with Hall(path, url, answer_timeout=5, settle=0.3, say=lambda _line: None) as hall:
        assert hall.wait_ready(10)
        hall.act({"act": "assign", "match": m.id, "board": board})
        until(lambda: hall.opens.get(m.id, {}).get("state") == "opened", f"the {game} match opened")
        score = bridge.scoreboard(board)["score"]
        assert score["game"] == games.game_name(game) and str(score["target"]) == target, score
        assert [p for s in score["sides"] for p in s["players"]] == players_of(hall.event, m)
        for line in lines:
            out = bridge.submit(board, line)
            assert out.accepted, (game, line, out.message)
        until(lambda: hall.event.matches[m.id].outcome is not None, f"the {game} board's result")
        o = hall.event.matches[m.id].outcome
        assert o is not None and o.source == "board" and o.winner == m.sides[winner], (game, o)
        assert o.points == points, (game, o)
        assert o.evidence["journal"] == bridge.scoreboard(board)["journal"]
    assert not read(path).rejected


def test_quebec_and_flicochet_stages_are_opened_and_reported_by_their_boards(broker: Broker, tmp_path: Path) -> None:
    """A stage of each of the other two games: the board opens the match with the stage's game and target, and its
    result comes back by itself with the winner and the points the board's rules gave."""
    url = parse_mqtt_url(broker.url)
    running = room_bridge(url, tmp_path, ("q1", "f1"), "room-b")
    try:
        a_stage_of("quebec", "q1", running.bridge, url, tmp_path)
        a_stage_of("flicochet", "f1", running.bridge, url, tmp_path)
    finally:
        running.stop()


def test_a_dismissed_board_result_stays_dismissed_after_a_restart(broker: Broker, tmp_path: Path) -> None:
    """The organiser typed a result first; the board's, which disagrees, is held; the organiser dismisses it. The
    dismissal is in the hall's journal: a restarted hall does not hold it again. When the board's scorer changes the
    game afterwards (an undo and the line again), that is a new result from the board, held again."""
    url = parse_mqtt_url(broker.url)
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Club open") as d:
        d.add_entrant("Ana")
        d.add_entrant("Ben")
        d.start_stage("rr", "round-robin", match="games:1")
        (m,) = d.event.matches.values()
    running = room_bridge(url, tmp_path, ("t1",), "room-c")
    said: list[str] = []
    hall = Hall(path, url, answer_timeout=5, settle=0.3, say=said.append).start()
    try:
        hall.act({"act": "assign", "match": m.id, "board": "t1"})
        until(lambda: hall.opens.get(m.id, {}).get("state") == "opened", "the match opened")
        with Director.open(path) as organiser:
            organiser.result(m.id, m.sides[0], points=[3, 0], source="organiser")
        final = play(running.bridge, "t1", players_of(hall.event, m), seed=11)
        (h,) = until(lambda: hall.held, "the board's result held")
        assert h["journal"] == final["journal"]
        line = hall.dismiss(m.id, final["journal"])
        assert line == f"dismissed the board's result for {m.id}; the event keeps its own"
        assert hall.held == [] and hall.counts["dismissed"] == 1
        try:
            hall.dismiss(m.id, final["journal"])
            raise AssertionError("a second dismissal of the same result was taken")
        except ActError as e:
            assert str(e) == f"no held result for {m.id} from that journal"
        hall.stop()
        said.clear()
        hall = Hall(path, url, answer_timeout=5, settle=0.3, say=said.append).start()
        assert hall.wait_ready(10)
        time.sleep(1.0)  # the settle time and more: the retained scoreboard has come and been looked at
        assert hall.held == [] and not [s for s in said if s.startswith("held for the organiser")], said
        # The scorer takes the last line back and types it again: the board's journal has two more entries.
        text = random_match(11, "tournament-2019", players_of(hall.event, m), match="games:1")  # as play() typed it
        last = [ln for ln in text.splitlines() if ln and not ln.startswith("[")][-1]
        for line in ("undo", last):
            out = running.bridge.submit("t1", line)
            assert out.accepted, (line, out.message)
        until(lambda: hall.held, "the changed board result held again")
        assert [r["source"] for r in results_of(path, m.id)] == ["organiser"]
    finally:
        hall.stop()
        running.stop()


def casual(bridge: Any, board: str, players: list[str], seed: int, lines: int) -> tuple[str, list[str]]:
    """A game opened by hand on the board (not the tournament's) and its first `lines` shots typed: its journal, and
    the lines still to type to finish it."""
    new = {"rules": "tournament-2019", "players": players, "match": "games:1"}
    assert bridge.mqtt_input(board, json.dumps({"id": f"casual-{seed}", "new": new}).encode())["ok"]
    text = random_match(seed, "tournament-2019", players, match="games:1")
    todo = [ln for ln in text.splitlines() if ln and not ln.startswith("[")]
    for line in todo[:lines]:
        assert bridge.submit(board, line).accepted, line
    return bridge.scoreboard(board)["journal"], todo[lines:]


def test_a_game_in_progress_keeps_its_board_until_it_ends_or_is_abandoned(broker: Broker, tmp_path: Path) -> None:
    """A board in the middle of a game is not free: a casual game there (not one of the tournament's matches) keeps
    the assigned match waiting, with the reason, until it ends (then the match opens by itself) or the organiser
    abandons it (an `abandon` act naming its journal); its journal stays on disk. A game only set up, with no shot
    played, and the tournament's own match already decided by the organiser, are replaced as before."""
    url = parse_mqtt_url(broker.url)
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Club open") as d:
        for name in ("Ana Costa", "Ben", "Marie-Claire O'Neil", "Zoé Lévesque"):
            d.add_entrant(name)
        d.start_stage("rr", "round-robin", match="games:1")
        m1, m2, m3, m4 = list(d.event.matches)[:4]
    running = room_bridge(url, tmp_path, ("t1", "t2"), "room-d")
    bridge = running.bridge
    said: list[str] = []
    hall = Hall(path, url, answer_timeout=5, settle=0.3, say=said.append).start()
    try:
        assert hall.wait_ready(10)
        # 1. A casual game under way on t1: the match assigned there waits, and says why.
        game, rest = casual(bridge, "t1", ["Cy", "Dee"], seed=21, lines=8)
        # the hall knows the board from its scoreboard on the broker, which comes on the host's time
        until(lambda: hall.in_the_way("t1") is not None, "the hall to see the game in progress on t1")
        hall.act({"act": "assign", "match": m1, "board": "t1"})
        until(lambda: hall.opens.get(m1) or hall.counts.get("busy"), "the hall's look at t1")
        assert m1 not in hall.opens, "the match was opened over the game in progress"
        (busy,) = hall.busy
        score = bridge.scoreboard("t1")["score"]
        assert score["totals"] == [0, 0] and score["current"]["shots_played"] == 8  # under way, no point yet
        reason = "board t1 has a game in progress: Cy 0 – Dee 0; finish it, or abandon it"
        assert busy == {"board": "t1", "match": m1, "journal": game, "game": "Cy 0 – Dee 0", "reason": reason}
        assert hall.in_the_way("t1") == reason and hall.in_the_way("t2") is None
        assert f"waiting: {m1} for t1: {reason}" in said and hall.counts["busy"] == 1
        assert hall.counts["requests"] == 0 and bridge.scoreboard("t1")["journal"] == game
        assert read(path).matches[m1].board == "t1"  # still the board's next match
        # 2. The game ends: the match opens by itself over it; the casual game's journal is on disk, finished.
        for line in rest:
            assert bridge.submit("t1", line).accepted, line
        until(lambda: hall.opens.get(m1, {}).get("state") == "opened", "the match opened once the game ended")
        assert not hall.busy and bridge.scoreboard("t1")["journal"] != game
        assert Path(game).exists() and journal.read(game).records
        # 3. A casual game under way on t2, abandoned by the organiser: the match opens; the journal stays.
        game2, _ = casual(bridge, "t2", ["Eve", "Fay"], seed=22, lines=12)
        until(lambda: hall.in_the_way("t2") is not None, "the hall to see the game in progress on t2")
        hall.act({"act": "assign", "match": m2, "board": "t2"})
        until(lambda: hall.busy, "t2 kept busy by its game")
        assert [b["match"] for b in hall.busy] == [m2] and m2 not in hall.opens
        kept = journal.read(game2).records
        hall.act({"act": "abandon", "board": "t2", "journal": game2, "reason": "the players went home"})
        until(lambda: hall.opens.get(m2, {}).get("state") == "opened", "the match opened over the abandoned game")
        assert not hall.busy and read(path).abandoned("t2") == {game2}
        assert journal.read(game2).records == kept  # left as it was, unfinished
        # 4. The tournament's own match, under way and then decided by the organiser: the board's next match opens
        # over it at once (it is the event's own game, no longer needed).
        m = hall.event.matches[m1]
        text = random_match(23, "tournament-2019", players_of(hall.event, m), match="games:1")
        for line in [ln for ln in text.splitlines() if ln and not ln.startswith("[")][:5]:
            assert bridge.submit("t1", line).accepted, line
        with Director.open(path) as organiser:
            organiser.result(m1, m.sides[0], points=[300, 200])
            organiser.assign(m3, "t1")
        until(lambda: hall.opens.get(m3, {}).get("state") == "opened", "the next match opened on t1")
        # 5. A game set up by hand with no shot played is no game in progress: replaced at once.
        with Director.open(path) as organiser:
            organiser.result(m3, hall.event.matches[m3].sides[1], points=[100, 200])
        casual(bridge, "t1", ["Gus", "Hal"], seed=24, lines=0)
        hall.act({"act": "assign", "match": m4, "board": "t1"})
        until(lambda: hall.opens.get(m4, {}).get("state") == "opened", "the match opened over a game not begun")
        assert hall.counts["busy"] == 2 and not hall.busy
    finally:
        hall.stop()
        running.stop()
    assert not read(path).rejected


def test_a_result_is_taken_only_from_the_bridge_that_keeps_the_board(broker: Broker, tmp_path: Path) -> None:
    """Another bridge's login (any holder of a bridge's password) publishes a finished scoreboard for the journal the
    hall opened, with the winner it chooses: not taken, counted, said once. The board's own result is then taken."""
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Club open") as d:
        for name in ("Ana", "Ben"):
            d.add_entrant(name)
        d.start_stage("rr", "round-robin", match="games:1")
        m1 = next(iter(d.event.matches))
    running = room_bridge(parse_mqtt_url(broker.url), tmp_path, ("t1",), "room-a")
    said: list[str] = []
    hall = Hall(path, parse_mqtt_url(broker.url), answer_timeout=5, settle=0.3, say=said.append).start()
    try:
        assert hall.wait_ready(10)
        hall.act({"act": "assign", "match": m1, "board": "t1"})
        until(lambda: hall.opens.get(m1, {}).get("state") == "opened", "the match opened on t1")
        until(lambda: hall.opens[m1]["journal"] == running.bridge.scoreboard("t1")["journal"], "its scoreboard")

        # The hall has seen the board's own scoreboard of the match: the bridge it names is the one that keeps the board
        # (before it, a forged scoreboard would be the first to name one). Not public: read under the hall's lock.
        def keeper() -> str | None:
            with hall.lock:
                return hall._opens[m1].bridge

        until(lambda: keeper() == "room-a", "the hall to see the board's own scoreboard of the match")
        forged = json.loads(json.dumps(running.bridge.scoreboard("t1")))
        forged["bridge"] = "room-b"
        forged["score"]["over"] = True
        forged["score"]["winner"] = forged["score"]["sides"][1]["name"]
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"forger-{uuid.uuid4().hex[:6]}")
        c.connect(broker.host, broker.port)
        c.loop_start()
        c.publish("flickboard/t1/scoreboard", json.dumps(forged), qos=1).wait_for_publish(10)
        until(lambda: hall.counts["other_bridge"] == 1, "the forged scoreboard refused")
        assert hall.event.matches[m1].outcome is None and read(path).matches[m1].outcome is None
        assert sum("not taken" in s and "room-b" in s for s in said) == 1
        c.loop_stop()
        c.disconnect()
        players = players_of(hall.event, hall.event.matches[m1])
        play(running.bridge, "t1", players, seed=3)
        until(lambda: hall.event.matches[m1].outcome is not None, "the board's own result")
        assert hall.event.matches[m1].outcome.evidence["bridge"] == "room-a"
    finally:
        hall.stop()
        running.stop()


def test_a_game_the_halls_copy_did_not_show_yet_is_not_opened_over(broker: Broker, tmp_path: Path) -> None:
    """The hall's copy of a board's scoreboard can be older than a game started there just before the assignment: its
    `new` names the journal it saw (`replaces`), so the bridge opens nothing over the game and says so (`stale`). The
    match stays on its board, is not counted as refused, and the hall looks again: the game holds the board (`busy`)
    until it ends, and then the match opens."""
    url = parse_mqtt_url(broker.url)
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Club open") as d:
        for name in ("Ana Costa", "Ben", "Marie-Claire O'Neil", "Zoé Lévesque"):
            d.add_entrant(name)
        d.start_stage("rr", "round-robin", match="games:1")
        m1 = next(iter(d.event.matches))
    running = room_bridge(url, tmp_path, ("t1",), "room-s")
    bridge = running.bridge
    said: list[str] = []
    hall = Hall(path, url, answer_timeout=5, settle=0.3, say=said.append).start()
    try:
        assert hall.wait_ready(10)
        before = bridge.scoreboard("t1")["journal"]
        until(lambda: hall.in_the_way("t1") is None and "t1" in hall._docs, "the hall's copy of t1")
        with hall.lock:
            old = dict(hall._docs["t1"])
        assert old["journal"] == before
        game, rest = casual(bridge, "t1", ["Cy", "Dee"], seed=31, lines=8)
        entries = bridge.scoreboard("t1")["entries"]
        until(lambda: hall._docs["t1"].get("entries") == entries, "the hall's copy of the game's last scoreboard")
        with hall.lock:  # the copy as it was a moment ago: the game's scoreboard not delivered yet
            hall._docs["t1"] = old
            hall.act({"act": "assign", "match": m1, "board": "t1"})
        until(lambda: hall.busy, "t1 held busy by the game the request did not see")
        assert bridge.scoreboard("t1")["journal"] == game, "the match was opened over the game in progress"
        reason = "board t1 has a game in progress: Cy 0 – Dee 0; finish it, or abandon it"
        assert hall.busy == [{"board": "t1", "match": m1, "journal": game, "game": "Cy 0 – Dee 0", "reason": reason}]
        counts = hall.counts
        assert (counts["requests"], counts["stale"], counts["refused"], counts["opened"]) == (1, 1, 0, 0)
        assert hall.opens[m1]["state"] == "retry" and not hall.refusals
        assert read(path).matches[m1].board == "t1"  # not sent back: still the board's next match
        stale = [line for line in said if line.startswith(f"not opened yet: {m1} on t1: ")]
        assert stale == [
            f"not opened yet: {m1} on t1: board t1 has a game in progress that this request did not see: Cy 0 – Dee 0 "
            f"(journal {game}); nothing was opened; the hall looks at the board again"
        ]
        assert bridge.inputs["stale"] == 1
        # The game ends: the match opens over it, with the journal the hall now sees.
        for line in rest:
            assert bridge.submit("t1", line).accepted, line
        until(lambda: hall.opens.get(m1, {}).get("state") == "opened", "the match opened once the game ended")
        assert not hall.busy and bridge.scoreboard("t1")["journal"] == hall.opens[m1]["journal"] != game
        assert hall.counts["stale"] == 1 and hall.counts["refused"] == 0 and bridge.inputs["stale"] == 1
        sent = [r for r in journal.read(path + ".hall").records if r.get("hall") in ("open", "stale")]
        assert [(r["hall"], r.get("prior")) for r in sent] == [("open", before), ("stale", None), ("open", game)]
    finally:
        hall.stop()
        running.stop()
    assert not read(path).rejected


class Wire:
    """A `Link` of the test's own: the hall's requests are kept, and the test hands it the boards' messages."""

    ready = True
    connected = True

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def publish_entry(self, board: str, payload: bytes, wait: float) -> bool:
        self.sent.append({"board": board, **json.loads(payload)})
        return True

    def attach(self, hall: Hall) -> None:
        hall.connection(True)

    def detach(self, hall: Hall) -> None:
        pass


def test_stale_answers_in_a_row_end_as_a_refusal(tmp_path: Path) -> None:
    """A board whose scoreboard never reaches the hall (its copy keeps the journal it saw) answers every request as
    stale: the hall sends again at most MAX_STALE times, then takes the next stale answer as a refusal and sends the
    match back. Each stale answer is said once and counted once, even when delivered twice."""
    path = str(tmp_path / "open.jsonl")
    with Director.create(path, "Club open") as d:
        for name in ("Ana", "Ben"):
            d.add_entrant(name)
        d.start_stage("rr", "round-robin", match="games:1")
        m1 = next(iter(d.event.matches))
    wire = Wire()
    said: list[str] = []
    hall = Hall(path, parse_mqtt_url("mqtt://localhost"), answer_timeout=0.5, settle=0, say=said.append, link=wire)
    hall.start()
    try:
        seen = {"format": "flickboard-scoreboard", "version": 1, "board": "t1", "journal": "/j/t1/old.jsonl",
                "entries": 0, "score": {"over": False, "totals": [0, 0]}}  # fmt: skip
        hall.feed("flickboard/t1/scoreboard", json.dumps(seen).encode())
        until(lambda: "t1" in hall._docs, "the hall's copy of t1")
        hall.act({"act": "assign", "match": m1, "board": "t1"})
        message = "board t1 has a game in progress that this request did not see: Cy 5 – Dee 0; nothing was opened"
        for n in range(1, MAX_STALE + 2):
            until(lambda n=n: len(wire.sent) == n, f"request {n}")
            req = wire.sent[-1]
            assert req["new"]["replaces"] == "/j/t1/old.jsonl" and req["new"]["players"] == ["Ana", "Ben"]
            assert req["new"]["replaces_entries"] == 0  # and as it saw it: a game gone on since is not the one seen
            answer = json.dumps({"id": req["id"], "ok": False, "entry": None, "message": message, "stale": True})
            for _ in range(2):  # delivered twice: one answer
                hall.feed("flickboard/t1/result", answer.encode())
            if n <= MAX_STALE:
                until(lambda n=n: hall.counts["stale"] == n, f"stale answer {n}")
        until(lambda: hall.counts["refused"] == 1, "the refusal")
        time.sleep(0.3)
        assert len(wire.sent) == MAX_STALE + 1 and hall.counts["stale"] == MAX_STALE
        assert sum(line.startswith(f"not opened yet: {m1} on t1: {message}") for line in said) == MAX_STALE
        assert sum(line.startswith(f"not opened: {m1} on t1: {message}") for line in said) == 1
        assert read(path).matches[m1].board is None and [r["reason"] for r in hall.refusals] == [message]
    finally:
        hall.stop()
