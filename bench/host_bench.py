"""Host figures, in process: the bridge's sustained rate with the durable journal (figure 2) and a replay of a
journal of many games (figure 3)."""

from __future__ import annotations

import gc
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from flickboard.board.bridge import Bridge, GameSetup
from flickboard.board.inbox import Inbox
from flickboard.core.journal import Journal, read
from flickboard.core.session import Session, fold_records, game_of
from flickboard.rules.pichenotte import Pichenotte
from flickboard.rules.transcript import parse_transcript
from flickboard.sim.random_game import random_match

from .common import CLUB_MATCH, PLAYERS, ROOT, RULES, board_lines, ratio, rss_kib, twenty_stream


def journal_floor(path: Path, n: int, size: int) -> float:
    """Appends per second of the journal alone (one fsync each): the ceiling of a bridge that acks after the disk."""
    with Journal.create(str(path), {"bench": "floor"}) as j:
        entry = {"src": "board", "pad": "x" * size}
        t0 = time.perf_counter()
        for _ in range(n):
            j.append(entry)
        return n / (time.perf_counter() - t0)


def throughput(
    boards: int = 10, per_board: int = 1000, workdir: str | None = None, flood: bool = True
) -> dict[str, Any]:
    """`boards` boards, each sending `per_board` events that the rules apply, through one in-process bridge:
    decode, de-duplicate, journal (fsync), fold, ack, and the scoreboard document encoded for MQTT.

    `flood`: the boards' lines are queued as fast as they come and taken the way the bridge's MQTT link takes them
    (host/board/inbox.py): everything waiting, up to 256 at a time, in one `bridge.batch()` (one fsync per journal, then
    one ack and one scoreboard per board). Otherwise each line is a batch of its own (an fsync, an ack and a
    scoreboard per event), as at a game's pace.

    Each board plays club matches (CLUB_MATCH) one after another, the way a bridge runs all day: when a match ends,
    the next starts in a new journal (`new_game`, as a `new` request does), and the board's events go on.
    The boards' lines are interleaved, as a bridge following several boards sees them. Reports events per second
    overall and in the first and last tenth (a rate that falls shows a per-event cost that grows), the process RSS
    (its growth per 1,000 events after the first tenth), and the journal alone (the floor) for comparison."""
    match = twenty_stream(None, CLUB_MATCH)
    stream = (match * (per_board // len(match) + 1))[:per_board]
    names = [f"t{i:03d}" for i in range(boards)]
    lines = {b: board_lines(stream, b) for b in names}
    feed: list[tuple[str, str]] = []  # (board, line); an empty line: start the board's next match
    for i in range(per_board + 1):
        for b in names:
            if i > 1 and (i - 1) % len(match) == 0:
                feed.append((b, ""))
            feed.append((b, lines[b][i]))
    events = sum(1 for _, line in feed if line)
    matches = {"n": boards}
    acks = {"n": 0}
    published = {"n": 0, "bytes": 0}

    def publish(topic: str, body: bytes, qos: int, retain: bool) -> None:
        published["n"] += 1
        published["bytes"] += len(body)

    def send(line: str) -> None:
        acks["n"] += 1

    with tempfile.TemporaryDirectory(dir=workdir or ROOT) as tmp:
        bridge = Bridge(Path(tmp) / "journals", GameSetup(RULES, PLAYERS, CLUB_MATCH), publish=publish)
        gc.collect()
        rss0, _ = rss_kib()
        marks: list[tuple[int, float, int]] = []  # (events, time, rss)
        tenth = max(1, events // 10)
        done = {"n": 0}

        def take(batch: list[tuple[str, str]]) -> None:
            with bridge.batch():
                for board, line in batch:
                    if not line:
                        bridge.new_game(board, RULES, PLAYERS, CLUB_MATCH)
                        matches["n"] += 1
                        continue
                    if done["n"] % tenth == 0:
                        marks.append((done["n"], time.perf_counter(), rss_kib()[0]))
                    bridge.serial_line("bench", line, send)
                    done["n"] += 1

        t0 = time.perf_counter()
        if flood:
            inbox: Inbox[tuple[str, str]] = Inbox(take, "bench")
            inbox.start()
            for item in feed:
                inbox.put(item)
            inbox.stop(timeout=600)
            batches = inbox.batches
        else:
            for item in feed:
                take([item])
            batches = len(feed)
        t1 = time.perf_counter()
        marks.append((events, t1, rss_kib()[0]))
        journals = sorted(Path(tmp, "journals").glob("*/*.jsonl"))
        snaps = [read(str(p)) for p in journals]  # read back from the files: what is on disk
        entries = sum(len(sn.records) for sn in snaps)
        folds = [fold_records(game_of(sn.header, str(p)), sn.records) for p, sn in zip(journals, snaps, strict=True)]
        sensor_applied = sum(f.sensor_events - len(f.queue) for f in folds)
        over = sum(1 for f in folds if f.state.over)
        review = [f for f in folds if f.review or f.queue]
        acked_to_the_end = sum(bridge.games[b].acked == (1, per_board + 1) for b in names)
        bridge.close()
        _, peak = rss_kib()
        floor = journal_floor(Path(tmp) / "floor.jsonl", 2000, len(feed[-1]))
    first = tenth / (marks[1][1] - marks[0][1])
    last = (marks[-1][0] - marks[-2][0]) / (marks[-1][1] - marks[-2][1])
    rate = events / (t1 - t0)
    growth = (marks[-1][2] - marks[1][2]) / max(1, (marks[-1][0] - marks[1][0])) * 1000
    return {
        "boards": boards,
        "mode": "flood, taken in batches" if flood else "one event at a time",
        "events": events,
        "matches": matches["n"],
        "matches_played_to_the_end": over,
        "batches": batches,
        "events_per_batch_mean": round(events / max(1, batches), 1),
        "journaled": entries,
        "acks_sent": acks["n"],
        "boards_acked_to_the_last_event": acked_to_the_end,
        "events_applied_by_rules": sensor_applied,
        "journals_held_for_review": len(review),
        "events_per_s": round(rate),
        "events_per_s_first_tenth": round(first),
        "events_per_s_last_tenth": round(last),
        "journal_alone_appends_per_s": round(floor),
        "ratio_to_journal_alone": ratio(rate, floor),
        "us_per_event": round(1e6 / rate, 1),
        "rss_start_kib": rss0,
        "rss_end_kib": marks[-1][2],
        "rss_peak_kib": peak,
        "rss_growth_kib_per_1000_events": round(growth, 1),
        "scoreboards_published": published["n"],
        "scoreboard_bytes_mean": round(published["bytes"] / max(1, published["n"])),
    }


def make_games_journal(path: Path, games: int, seed: int = 8) -> tuple[int, str]:
    """A journal of one match of `games` random legal games, entered line by line as at `flickboard play`.
    Returns (entries, the match summary's final line of totals)."""
    match = f"games:{games}"
    text = random_match(seed, RULES, list(PLAYERS), match=match, max_inputs=60 * games + 1000)
    session = Session.create(str(path), Pichenotte.create(RULES, list(PLAYERS), match=match))
    for _, line in parse_transcript(text).lines:
        session.submit(line)
    totals = json.dumps(session.summary()["totals"])
    n = len(session.journal.records)
    session.close()
    return n, totals


def replay(games: int = 1000, workdir: str | None = None, repeats: int = 3) -> dict[str, Any]:
    """A journal of `games` games rebuilt to the game state: read and verify every record, then fold the rules over
    it, holding the newest entries in effect as a live session does (what a restart does). The floor is reading and
    verifying the file alone."""
    with tempfile.TemporaryDirectory(dir=workdir or ROOT) as tmp:
        path = Path(tmp) / "match.jsonl"
        t0 = time.perf_counter()
        entries, totals = make_games_journal(path, games)
        build_s = time.perf_counter() - t0
        size = os.path.getsize(path)
        reads, folds = [], []
        state_totals = None
        for _ in range(repeats):
            gc.collect()
            t0 = time.perf_counter()
            snap = read(str(path))
            t1 = time.perf_counter()
            fold = fold_records(game_of(snap.header, str(path)), snap.records, Session.KEEP)
            t2 = time.perf_counter()
            reads.append(t1 - t0)
            folds.append(t2 - t0)
            state_totals = json.dumps(fold.game.summary(fold.state, len(fold.rejected))["totals"])
        finished = len(fold.state.games)
    best_read, best = min(reads), min(folds)
    return {
        "games": games,
        "games_finished_in_state": finished,
        "entries": entries,
        "journal_bytes": size,
        "same_totals_as_live": state_totals == totals,
        "rebuild_s_best": round(best, 3),
        "rebuild_s_median": round(sorted(folds)[len(folds) // 2], 3),
        "read_and_verify_alone_s": round(best_read, 3),
        "ratio_to_read_alone": ratio(best, best_read),
        "us_per_entry": round(best / entries * 1e6),
        "entries_per_s": round(entries / best),
        "journal_build_s": round(build_s, 1),
    }
