"""A whole tournament evening as an organiser and the players live it, every part real: 16 entrants with people's
names (two words, accents, apostrophes, hyphens), a 3-round Swiss into a top-8 single elimination, 8 boards behind
two bridges on one Mosquitto, `flickboard web --tournament` running the hall, the organiser's page and two players'
pages in Chromium. Every match is opened on its board by the hall and its result reported by the board (its scorer
types the game on the board's bridge, as the phone does). On the way: a board refuses its match (its bridge can start
no journal) and the match waits for another board; a result typed backwards is refused with nothing changed; a name
typed wrong at registration is put right from the terminal mid-event. At the end the final standings are the table
worked out by hand below (R-1-B: the matches are one game each here, `games:1`, the better seed always winning)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from tournament_rig import TournamentRig, click_act, entries, new_page, spoil_journals, until
from web_rig import Chromium

from flickboard.cli.bridge import start_bridge
from flickboard.config import BridgeConfig, parse_mqtt_url
from flickboard.sim.broker import Broker
from flickboard.tournament import Director, read
from flickboard.tournament.hall import players_of

# Seeded in this order (1 is the best). "Noe D'Amours" is registered without the accent, and put right mid-event.
ENTRANTS = [
    "Ana Costa",
    "Ana Silva",
    "Zoé Lévesque",
    "Marie-Claire O'Neil",
    "Ben Okafor",
    "Cat Dubois",
    "Noe D'Amours",
    "Eve Laurent",
    "Fay Nguyen",
    "Gus Pereira",
    "Hal Berg",
    "Ivy Moreau",
    "Jon Silva",
    "Kim Tran",
    "Léa Gagné",
    "Jean-Christophe Vandenbroucke",
]
RENAMED = {"Noe D'Amours": "Noé D'Amours"}
SEED = {**{n: i for i, n in enumerate(ENTRANTS)}, **{RENAMED.get(n, n): i for i, n in enumerate(ENTRANTS)}}
# The club's doubles after the singles: four teams of the evening's players, a round robin on room A's boards.
TEAMS = [("Ana Costa", "Zoé Lévesque"), ("Ana Silva", "Marie-Claire O'Neil"), ("Ben Okafor", "Noé D'Amours"),
         ("Léa Gagné", "Jean-Christophe Vandenbroucke")]  # fmt: skip
SEED.update({f"{a} & {b}": 100 + i for i, (a, b) in enumerate(TEAMS)})

# Worked out by hand, the better seed winning every match (each 12 twenties to none):
# Swiss round 1, one score group, top half against bottom half: 1-9, 2-10, ..., 8-16; seeds 1-8 win.
# Round 2: {1..8} pair 1-5, 2-6, 3-7, 4-8 and {9..16} 9-13, 10-14, 11-15, 12-16 (every tie-break level: seed order).
# Round 3: {1,2,3,4} on 2 wins pair 1-3, 2-4; {5..12} on 1 win 5-9, 6-10, 7-11, 8-12; {13..16} 13-15, 14-16.
# After 3 rounds: 3 wins 1, 2; 2 wins 3, 4 (Buchholz 6), 5, 6 (5), 7, 8 (3); 1 win 9, 10 (6), 11, 12 (4), 13, 14
# (3); none 15, 16 (4). The top 8 go on; the bracket: 1-8, 4-5, 2-7, 3-6, then 1-4, 2-3, then 1-2.
# Final standings: 1 the champion, 2 the finalist, 3= the semi-finalists, 5= the quarter-finalists, then the Swiss
# places of the others, those level on every key sharing a place (a tie no shoot-out was asked to break).
HAND_WORKED = [
    (1, "Ana Costa"),
    (2, "Ana Silva"),
    (3, "Zoé Lévesque"),
    (3, "Marie-Claire O'Neil"),
    (5, "Ben Okafor"),
    (5, "Cat Dubois"),
    (5, "Noé D'Amours"),
    (5, "Eve Laurent"),
    (9, "Fay Nguyen"),
    (9, "Gus Pereira"),
    (11, "Hal Berg"),
    (11, "Ivy Moreau"),
    (13, "Jon Silva"),
    (13, "Kim Tran"),
    (15, "Léa Gagné"),
    (15, "Jean-Christophe Vandenbroucke"),
]
ROOM_A = ("t1", "t2", "t3", "t4")
ROOM_B = ("t5", "t6", "t7", "t8")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Chromium() as chromium:  # Playwright's own Browser, for pages made here
        yield chromium.browser


def lines_of(winner_side: int) -> list[str]:
    """A game typed on the board by its scorer: every puck shot in turn, the sides alternating (R-2: singles back and
    forth, doubles clockwise; the first side's first player breaks); the winner's each a twenty, the other's each
    short of the zone (R-9: to the ditch), so the board stays clear and the game ends 240 to 0 after the 24th shot."""
    return ["shot in" if i % 2 == winner_side else "shot short" for i in range(24)]


def flickboard(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(
        [str(Path(sys.executable).parent / "flickboard"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


class Evening:
    def __init__(self, rig: TournamentRig, room_b: Any, path: str) -> None:
        self.rig, self.room_b, self.path = rig, room_b, path

    def bridge_of(self, board: str) -> Any:
        return self.rig.bridge if board in ROOM_A else self.room_b.bridge

    def play_the_boards(self, matches: list[str], hall: Any = "web") -> None:
        """Each match, once the hall has opened it on its board (`hall`: the web server's; None: another process's,
        seen on the board's scoreboard), typed there by its scorer; then its result, from the board, in the journal."""
        for mid in matches:
            if hall == "web":
                until(lambda mid=mid: self.rig.hall.opens.get(mid, {}).get("state") == "opened", f"{mid} opened", 30)
            ev = read(self.path)
            m = ev.matches[mid]
            assert m.board is not None
            if hall != "web":
                who, board = sorted(players_of(ev, m)), m.board

                def opened(who: list[str] = who, board: str = board) -> bool:
                    return sorted(self.bridge_of(board).scoreboard(board)["score"]["players"]) == who

                until(opened, f"{mid} opened on {m.board}", 30)
            assert players_of(ev, m)[0] in ev.entrants[m.sides[0]].players  # the first side breaks
            winner = min(m.sides, key=SEED.__getitem__)
            for line in lines_of(m.sides.index(winner)):
                out = self.bridge_of(m.board).submit(m.board, line)
                assert out.accepted, (mid, line, out.message)
        for mid in matches:
            until(
                lambda mid=mid: read(self.path).matches[mid].outcome is not None, f"{mid}'s result from its board", 30
            )
            o = read(self.path).matches[mid].outcome
            assert o is not None and o.source == "board" and o.points is not None and sorted(o.points) == [0, 240]


def test_a_whole_evening_with_real_names_two_bridges_the_pages_and_the_boards(
    browser: Browser, broker: Broker, tmp_path: Path
) -> None:
    path = str(tmp_path / "spring.jsonl")
    with Director.create(path, "Spring Open") as d:
        for i, name in enumerate(ENTRANTS):
            d.add_entrant(name, seed=i + 1, club="Montréal" if i % 2 else "Santa Fe")
        d.start_stage("swiss", "swiss", options={"rounds": 3}, rules="tournament-2019", match="games:1")
    rig = TournamentRig(broker, tmp_path, path, boards=ROOM_A)
    room_b = start_bridge(
        BridgeConfig(
            mqtt=parse_mqtt_url(broker.url),
            boards=ROOM_B,
            journals=str(tmp_path / "journals-b"),
            client_id=f"evening-{uuid.uuid4().hex[:8]}",
            bridge_id="room-b",
        )
    )
    evening = Evening(rig, room_b, path)
    try:
        assert room_b.mqtt is not None and room_b.mqtt.wait_ready(10)
        until(lambda: set(ROOM_A + ROOM_B) <= set(rig.web.hub.boards()), "the 8 boards' scoreboards on the web")
        page = new_page(browser, 1280, 900)
        page.goto(f"{rig.url}/scorer?key={rig.web.organiser_key}")
        page.goto(f"{rig.url}/organiser")
        page.wait_for_function("() => document.body.dataset.state === 'live'")
        zoe = new_page(browser, 390, 740, mobile=True)
        zoe.goto(f"{rig.url}/entrants")
        zoe.wait_for_function("() => document.body.dataset.state === 'live'")
        zoe.fill("#q", "zoe lev")  # without the accent, as a phone's keyboard gives it
        zoe.wait_for_function("() => document.body.dataset.shown === '1'")
        zoe.click("#list a")
        zoe.wait_for_function("() => document.body.dataset.state === 'live'")

        # Round 1. Room B's t8 cannot start a journal (its disk is gone read-only, say): it refuses its match, which
        # goes back to waiting; the organiser sees why on the page, the disk is put right, and a free board takes it.
        spoil_journals(tmp_path / "journals-b", "t8")
        said, ok = click_act(page, "#pair")
        assert ok and said == "paired round 1 of swiss: 8 matches", said
        r1 = read(path).stages["swiss"].rounds[0]
        assert [read(path).matches[m].sides for m in r1] == [[ENTRANTS[i], ENTRANTS[i + 8]] for i in range(8)]
        entries(page, read(path).count)
        said, ok = click_act(page, "#nextfree")
        assert ok and said.startswith("assigned ") and said.count(" on t") == 8, said
        refused = next(
            part.split(" on ")[0] for part in said.removeprefix("assigned ").split(", ") if part.endswith(" t8")
        )
        page.wait_for_function("() => document.body.dataset.refusals === '1'", timeout=20_000)
        assert "board t8 refused " + refused in page.inner_text(f".refusals li[data-match='{refused}']")
        until(lambda: read(path).matches[refused].board is None, "the refused match back to waiting")
        where = tmp_path / "journals-b" / "t8"
        where.unlink()
        where.mkdir()
        evening.play_the_boards([m for m in r1 if m != refused])
        entries(page, read(path).count)
        said, ok = click_act(page, "#nextfree")
        assert ok and said.startswith(f"assigned {refused} on t"), said
        evening.play_the_boards([refused])

        # Between rounds, at the terminal: a name typed without its accent at registration is put right.
        out = flickboard("tournament", "rename", path, "Noe", "Noé D'Amours", cwd=tmp_path)
        assert out.returncode == 0 and out.stdout == "Noe D'Amours is now Noé D'Amours\n", out.stderr
        assert "Noé D'Amours" in read(path).entrants and "Noe D'Amours" not in read(path).entrants

        # Round 2. Zoé's phone says where she plays as soon as her match is on a board.
        entries(page, read(path).count)
        said, ok = click_act(page, "#pair")
        assert ok and said == "paired round 2 of swiss: 8 matches", said
        r2 = read(path).stages["swiss"].rounds[1]
        mine = next(read(path).matches[m] for m in r2 if "Zoé Lévesque" in read(path).matches[m].sides)
        assert mine.sides == ["Zoé Lévesque", "Noé D'Amours"]  # seeds 3 and 7
        says(zoe, "Your next match: against Noé D'Amours, waiting for a board")
        # A result typed in a hurry, the numbers the wrong way round for the winner chosen: refused, nothing changes.
        row = f"tr[data-match='{mine.id}']"
        entries(page, read(path).count)
        page.select_option(f"{row} select.winner", "Zoé Lévesque")
        page.fill(f"{row} input.points", "0-240")
        n = read(path).count
        said, ok = click_act(page, f"{row} button[data-do='result']")
        assert not ok and said.startswith("the points say Noé D'Amours won: Zoé Lévesque 0 – 240 Noé D'Amours"), said
        assert read(path).count == n and read(path).matches[mine.id].outcome is None
        said, ok = click_act(page, "#nextfree")
        assert ok and said.count(" on t") == 8, said
        board = read(path).matches[mine.id].board
        says(zoe, f"Your next match: board {board} against Noé D'Amours, now")
        evening.play_the_boards(r2)

        # Round 3, then the top 8 into a single elimination, started from the organiser's page.
        entries(page, read(path).count)
        said, ok = click_act(page, "#pair")
        assert ok and said == "paired round 3 of swiss: 8 matches", said
        r3 = read(path).stages["swiss"].rounds[2]
        entries(page, read(path).count)
        said, ok = click_act(page, "#nextfree")
        assert ok, said
        evening.play_the_boards(r3)
        ev = read(path)
        top8 = {r.entrant for r in ev.table(ev.stages["swiss"]).rows[:8]}
        assert top8 == {n for _, n in HAND_WORKED[:8]}  # 2 or 3 wins: the first 8 seeds, as worked out above
        entries(page, ev.count)
        page.fill("#start input[name='stage']", "final")
        page.select_option("#format", "single-elimination")
        page.select_option("#from", "swiss")
        page.fill("#start input[name='top']", "8")
        page.fill("#start input[name='match']", "games:1")
        said, ok = submit(page)
        assert ok and said == "stage final started: single elimination, 8 entrants; 4 matches ready for the boards"
        while read(path).champion(read(path).stages["final"]) is None:
            ev = read(path)
            entries(page, ev.count)
            ready = [m.id for m in ev.stages["final"].matches.values() if m.state == "ready" and m.board is None]
            said, ok = click_act(page, "#nextfree")
            assert ok, said
            evening.play_the_boards(ready)
        says(zoe, "Your tournament is over: 3rd")
        ana = new_page(browser, 390, 740, mobile=True)
        ana.goto(f"{rig.url}/entrant/ana%20costa")  # typed in lower case: sent on to her own page
        says(ana, "You are the champion")

        ev = read(path)
        assert [(place, name) for place, name, _ in ev.final_standings()] == HAND_WORKED
        assert not ev.rejected and all(
            m.outcome is not None and m.outcome.source == "board" for m in ev.matches.values() if m.state == "done"
        )
        out = flickboard("tournament", "standings", path, cwd=tmp_path)
        assert out.returncode == 0 and "Spring Open: final standings" in out.stdout
        for place, name in HAND_WORKED:
            assert any(line.split()[:1] == [str(place)] and name in line for line in out.stdout.splitlines()), name
        page.close()

        # The doubles: registered at the terminal (names of several words, partners), a round robin whose hall runs
        # as `flickboard tournament run` on room A's boards, the team seeded first winning every match.
        doubles = str(tmp_path / "doubles.jsonl")
        assert flickboard("tournament", "new", doubles, "--name", "Spring Open doubles", cwd=tmp_path).returncode == 0
        for i, (a, b) in enumerate(TEAMS):
            out = flickboard("tournament", "add", doubles, a, "--partner", b, "--seed", str(i + 1), cwd=tmp_path)
            assert out.returncode == 0, out.stderr
        out = flickboard("tournament", "start", doubles, "rr", "--format", "round-robin", "--match", "games:1",
                         cwd=tmp_path)  # fmt: skip
        assert out.returncode == 0, out.stderr
        hall = subprocess.Popen(
            [
                str(Path(sys.executable).parent / "flickboard"),
                "tournament",
                "run",
                doubles,
                "--mqtt",
                broker.url,
                "--boards",
                ",".join(ROOM_A),
            ],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            evening.path = doubles
            while not read(doubles).stages["rr"].complete:
                out = flickboard("tournament", "assign", doubles, "--auto", "t1", "t2", cwd=tmp_path)
                assert out.returncode == 0, out.stderr
                ev = read(doubles)
                on = [m.id for m in ev.stages["rr"].matches.values() if m.board and not m.decided]
                assert len(on) == 2, out.stdout  # two matches with the four teams, one on each board
                evening.play_the_boards(on, hall=None)
        finally:
            hall.terminate()
            said = hall.communicate(timeout=30)[0]
        assert "Traceback" not in said and hall.returncode == 0, said
        ev = read(doubles)
        assert [(place, name) for place, name, _ in ev.final_standings()] == [
            (i + 1, f"{a} & {b}") for i, (a, b) in enumerate(TEAMS)
        ]
    finally:
        room_b.stop()
        rig.close()
        shutil.rmtree(tmp_path / "journals-b", ignore_errors=True)


def says(page: Page, text: str) -> None:
    page.wait_for_function("t => document.querySelector('#headline').textContent === t", arg=text, timeout=30_000)


def submit(page: Page) -> tuple[str, bool]:
    """The organiser's "start a stage" form sent: its one-line answer, and whether it was done."""
    before = int(page.evaluate("() => Number(document.body.dataset.acts || 0)"))
    page.click("#start button[type='submit']")
    page.wait_for_function("n => Number(document.body.dataset.acts || 0) > n", arg=before, timeout=15_000)
    return page.inner_text("#answer"), "ok" in (page.get_attribute("#answer", "class") or "")
