"""The organiser's commands, one `cmd_…(args, out)` per action of `flickboard tournament`: each reads what was typed,
acts on the event through the director (or only reads it) and prints what it did."""

from __future__ import annotations

import argparse
import copy
import math
import os
import shutil
import sys
from typing import Any, TextIO

from flickboard.cli.tournament.bracket import bracket_lines
from flickboard.cli.tournament.lookup import find_entrant, find_match, find_stage, match_on_board
from flickboard.cli.tournament.opening import open_director, read_event, refusals
from flickboard.cli.tournament.registrations import acts_from_csv, entrant_act, entrant_text, is_registered
from flickboard.cli.tournament.show import next_step, round_lines, show_lines
from flickboard.cli.tournament.standings import final_lines, stage_standings
from flickboard.cli.tournament.text import FORMAT_NAMES, chain_text, grid, outcome_text, stage_line
from flickboard.cli.tournament.values import check_boards, evidence_of, tiebreak_chain, two_numbers
from flickboard.errors import UserError
from flickboard.rules import games
from flickboard.rules.base import did_you_mean
from flickboard.rules.names import fold as fold_name
from flickboard.rules.pichenotte import rule_set as pichenotte_rules
from flickboard.tournament import ActError, Director, Event, dumps, proposals
from flickboard.tournament import export as exports
from flickboard.tournament.event import BRACKETS, Match, Stage

# ---------------------------------------------------------------- the entrants


def cmd_new(args: argparse.Namespace, out: TextIO) -> int:
    if os.path.exists(args.file):
        raise UserError(f"{args.file} already exists: a tournament is kept in a file of its own (pick another name)")
    with refusals():
        Director.create(args.file, args.name).close()
    out.write(f"{args.name}: a new tournament in {args.file}\n")
    out.write(f"next: flickboard tournament add {args.file} NAME (or --from entrants.csv)\n")
    return 0


def cmd_add(args: argparse.Namespace, out: TextIO) -> int:
    if bool(args.name) == bool(args.from_csv):
        raise UserError("give an entrant's NAME, or --from entrants.csv (columns name, partner, seed, club)")
    if args.from_csv:
        acts = acts_from_csv(args.from_csv)
    else:
        acts = [(0, entrant_act(args.name, args.partner, args.seed, args.club))]
    with open_director(args.file) as d:
        known = []
        if args.from_csv:  # a row already registered exactly so is skipped: the same file can be read again
            known = [act for _, act in acts if is_registered(d.event, act)]
            acts = [(n, act) for n, act in acts if act not in known]
        trial = copy.deepcopy(d.event)  # every row is checked before any is written: all of the file, or nothing
        for lineno, act in acts:
            try:
                trial.check(act)
                trial.apply(act)
            except ActError as e:
                where = f"{args.from_csv} line {lineno}: " if lineno else ""
                raise UserError(f"{where}{e}") from None
        for _, act in acts:
            d.act(act)
            out.write(f"entrant {len(d.event.entrants)}: {entrant_text(act)}\n")
        if known:
            out.write(f"already registered: {', '.join(str(act['name']) for act in known)}\n")
    return 0


def _out(args: argparse.Namespace, out: TextIO, status: str) -> int:
    with open_director(args.file) as d:
        name = find_entrant(d.event, args.entrant)
        d.act({"act": "withdraw" if status == "withdrawn" else "disqualify", "entrant": name, "reason": args.reason})
        lost = [m for m in d.event.matches.values() if m.state == "walkover" and m.loser == name and not m.outcome]
        out.write(f"{name} is {status}" + (f" ({args.reason})" if args.reason else "") + "\n")
        for m in lost:
            out.write(f"  {m.id}: {m.winner} wins by walkover\n")
    return 0


def cmd_rename(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        old = find_entrant(d.event, args.entrant)
        d.rename(old, " ".join(args.name.split()))
        e = d.event.entrants[" ".join(args.name.split())]
        out.write(f"{old} is now {e.name}" + (f" ({' & '.join(e.players)})" if len(e.players) > 1 else "") + "\n")
    return 0


def cmd_substitute(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        team = find_entrant(d.event, args.entrant)
        players = d.event.entrants[team].players
        gone = next((p for p in players if fold_name(p) == fold_name(args.out)), args.out)
        d.substitute(team, gone, " ".join(args.player.split()))
        out.write(f"{team}: {' & '.join(d.event.entrants[team].players)} ({args.player} for {gone})\n")
    return 0


def cmd_withdraw(args: argparse.Namespace, out: TextIO) -> int:
    return _out(args, out, "withdrawn")


def cmd_disqualify(args: argparse.Namespace, out: TextIO) -> int:
    return _out(args, out, "disqualified")


# ---------------------------------------------------------------- the stages, their rounds and the boards


def _not_finished(ev: Event, st: Stage) -> str:
    if st.format == "swiss" and len(st.rounds) < st.options["rounds"]:
        return f"stage {st.name} is not finished: round {len(st.rounds)} of {st.options['rounds']} has been paired"
    left = sum(1 for m in st.matches.values() if not m.decided)
    return f"stage {st.name} is not finished: {left} of its matches still to play"


def cmd_start(args: argparse.Namespace, out: TextIO) -> int:
    fmt = args.format
    options: dict[str, Any] = {}
    if args.rounds is not None and fmt != "swiss":
        raise UserError("--rounds is for a Swiss stage (a round robin's rounds follow from its entrants)")
    if args.pools is not None and fmt != "pools":
        raise UserError("--pools is for --format pools")
    if args.reset is not None and fmt != "double-elimination":
        raise UserError("--reset is for a double-elimination stage's grand final")
    if (args.top is None) != (args.from_stage is None):
        raise UserError("--top N and --from STAGE go together: the first N of a finished stage (of each pool)")
    chain = tiebreak_chain(args.tiebreaks)
    with open_director(args.file) as d:
        ev = d.event
        if fmt == "swiss":
            if args.rounds is None:
                n = len(ev.intake(None)) if args.from_stage is None else args.top
                suggest = max(1, math.ceil(math.log2(max(n, 2))))
                raise UserError(f"a Swiss stage needs --rounds N (for {n} entrants, {suggest} rounds find one winner)")
            options["rounds"] = args.rounds
        if fmt == "pools":
            if args.pools is None:
                raise UserError("a pools stage needs --pools N (how many pools)")
            options["pools"] = args.pools
        if fmt == "double-elimination" and args.reset is not None:
            options["reset"] = args.reset
        intake = None
        if args.from_stage is not None:
            src = find_stage(ev, args.from_stage)
            if src.closed_by is None and not src.complete:
                raise UserError(f"stage {args.stage} cannot start yet: " + _not_finished(ev, src))
            intake = {"from": src.name, "top": args.top}
        try:
            game = games.game_name(args.game)
        except games.GameError as e:
            raise UserError(str(e)) from None
        if args.rules is not None:
            known = [r for r, _ in games.rule_sets(game)]
            if args.rules not in known:
                raise UserError(
                    f"{games.title(game)} has no rule set {args.rules!r}{did_you_mean(args.rules, known)}"
                    f" (flickboard rules list --game {game})"
                )
        try:
            d.start_stage(
                args.stage,
                fmt,
                options=options,
                game=game,
                rules=args.rules,
                match=args.match,
                tiebreaks=chain,
                intake=intake,
            )
        except ActError as e:
            raise UserError(f"stage {args.stage} cannot start: {e}") from None
        st = d.event.stages[args.stage]
        out.write("Stage " + stage_line(d.event, st) + "\n")
        if fmt not in BRACKETS:
            out.write(f"  {chain_text(st)}\n")
        out.write("  seeding: " + ", ".join(f"{i}. {e}" for i, e in enumerate(st.entrants, 1)) + "\n")
        if fmt in BRACKETS:
            out.write("\n".join(bracket_lines(d.event, st, _columns(out))[1:]) + "\n")
        elif fmt == "swiss":
            out.write(f"next: flickboard tournament pair {args.file} {st.name}\n")
        else:
            out.write(f"  {len(st.matches)} matches in {len(st.rounds)} rounds, all scheduled now\n")
            out.write(f"next: flickboard tournament assign {args.file} --auto BOARD ...\n")
    return 0


def cmd_pair(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        st = find_stage(d.event, args.stage)
        if st.format != "swiss":
            raise UserError(
                f"stage {st.name} is a {FORMAT_NAMES[st.format]}: its matches follow from its start and its results "
                "(only a Swiss stage is paired round by round)"
            )
        if st.closed_by:
            raise UserError(f"stage {st.name} is over: its qualifiers went on to stage {st.closed_by}")
        if len(st.rounds) >= st.options["rounds"]:
            raise UserError(f"stage {st.name} has played its {st.options['rounds']} rounds")
        left = [m for m in st.matches.values() if not m.decided]
        if left:
            raise UserError(
                f"round {len(st.rounds)} of stage {st.name} still has {len(left)} matches to play: "
                + ", ".join(m.id for m in left[:5])
                + (" ..." if len(left) > 5 else "")
            )
        boards = list(args.boards or [])
        check_boards(d.event, boards)
        d.pair_round(st.name)
        r = len(st.rounds)
        for mid, board in zip(st.rounds[r - 1], boards, strict=False):
            d.assign(mid, board)
        out.write(f"{st.name}, round {r} of {st.options['rounds']}\n")
        out.write("\n".join(round_lines(d.event, st, r)) + "\n")
    return 0


def cmd_assign(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        ev = d.event
        if args.auto:
            if args.targets:
                raise UserError("assign FILE MATCH BOARD, or assign FILE --auto BOARD ...: not both")
            boards = list(args.auto)
            check_boards(ev, boards)
            done = 0
            for b in boards:
                mid = proposals.next_match(ev)
                if mid is None:
                    break
                d.assign(mid, b)
                m = ev.matches[mid]
                out.write(f"{b}: {mid}  {m.sides[0]} vs {m.sides[1]}\n")
                done += 1
            if done == 0:
                out.write("no match is ready to play: " + next_step(ev, args.file) + "\n")
            elif done < len(boards):
                out.write(f"{', '.join(boards[done:])}: no match ready for them now\n")
            return 0
        if len(args.targets) != 2:
            raise UserError("assign FILE MATCH BOARD (or: assign FILE --auto BOARD ...)")
        m = find_match(ev, args.targets[0])
        board = args.targets[1]
        if m.decided:
            raise UserError(f"match {m.id} is already decided ({outcome_text(ev, m)})")
        other = match_on_board(ev, board)
        if other is not None and other.id != m.id:
            raise UserError(
                f"board {board} is playing {other.id} ({other.sides[0]} vs {other.sides[1]}): enter its result first"
            )
        d.assign(m.id, board)
        out.write(f"{board}: {m.id}  {m.sides[0]} vs {m.sides[1]}\n")
    return 0


# ---------------------------------------------------------------- the results


def _decided(ev: Event, m: Match) -> UserError:
    return UserError(
        f"match {m.id} is already decided ({outcome_text(ev, m)}); to change it: flickboard tournament correct"
    )


def _result_act(d: Director, args: argparse.Namespace, m: Match, correct: bool) -> dict[str, Any]:
    ev = d.event
    if not m.known:
        raise UserError(f"match {m.id} does not have its two entrants yet ({outcome_text(ev, m)})")
    winner = find_entrant(ev, args.winner, m.sides)
    act: dict[str, Any] = {
        "act": "correct" if correct else "result",
        "match": m.id,
        "sides": list(m.sides),
        "winner": winner,
        "games": two_numbers(args.games, "--games"),
        "points": two_numbers(args.points, "--points"),
        "twenties": two_numbers(args.twenties, "--twenties"),
        "twenties_confirmed": bool(args.confirmed),
        "shootout": two_numbers(args.shootout, "--shootout"),
        "source": "organiser",
        "evidence": evidence_of(args.journal, args.file),
    }
    if args.confirmed and act["twenties"] is None:
        raise UserError("--confirmed says the twenties were checked: give them with --twenties a-b")
    if correct:
        act["reason"] = args.reason or ""
        if getattr(args, "walkover", False):
            act = {**act, "walkover": True}
    return act


def _after(ev: Event, m: Match, out: TextIO, path: str) -> None:
    out.write(f"{m.id}: {outcome_text(ev, m)}\n")
    st = ev.stages[m.stage]
    if st.complete:
        champ = ev.champion(st)
        out.write(f"stage {st.name} is complete" + (f": {champ} is the champion" if champ else "") + "\n")
    elif st.format == "swiss" and all(x.decided for x in st.matches.values()):
        out.write(f"round {len(st.rounds)} is complete: flickboard tournament pair {path} {st.name}\n")
    else:
        nxt = [x for x in st.matches.values() if x.state == "ready" and not x.board]
        if st.format in BRACKETS and nxt:
            out.write("ready: " + ", ".join(f"{x.id} ({x.sides[0]} vs {x.sides[1]})" for x in nxt) + "\n")


def cmd_result(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        m = find_match(d.event, args.match)
        if m.outcome is not None or m.decided:
            raise _decided(d.event, m)
        d.act(_result_act(d, args, m, False))
        _after(d.event, m, out, args.file)
    return 0


def cmd_walkover(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        m = find_match(d.event, args.match)
        if m.outcome is not None or m.decided:
            raise _decided(d.event, m)
        if not m.known:
            raise UserError(f"match {m.id} does not have its two entrants yet ({outcome_text(d.event, m)})")
        winner = find_entrant(d.event, args.winner, m.sides)
        d.walkover(m.id, winner, args.reason or "")
        _after(d.event, m, out, args.file)
    return 0


def cmd_correct(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        m = find_match(d.event, args.match)
        if m.outcome is None:
            raise UserError(f"match {m.id} has no result to correct ({outcome_text(d.event, m)}): enter it with result")
        d.act(_result_act(d, args, m, True))
        _after(d.event, m, out, args.file)
    return 0


def _describe(ev: Event, act: dict[str, Any]) -> str:
    kind = act.get("act")
    if kind in ("result", "correct", "walkover", "assign"):
        what = {"assign": f"on {act.get('board')}", "walkover": "walkover"}.get(
            str(kind), f"won by {act.get('winner')}"
        )
        return f"{kind} {act.get('match')} ({what})"
    if kind == "rename":
        return f"rename {act.get('entrant')} to {act.get('name')}"
    if kind == "substitute":
        return f"substitute {act.get('in')} for {act.get('out')} in {act.get('entrant')}"
    if kind == "unassign":
        return f"unassign {act.get('match')} (back to waiting for a board)"
    if kind == "abandon":
        return f"abandon the unfinished game on {act.get('board')}"
    if kind == "entrant":
        return f"entrant {act.get('name')}"
    if kind in ("withdraw", "disqualify"):
        return f"{kind} {act.get('entrant')}"
    if kind == "stage":
        return f"stage {act.get('name')} ({act.get('format')})"
    if kind == "pair":
        return f"round {act.get('round')} of stage {act.get('stage')}"
    if kind == "shootout":
        return f"shoot-out in stage {act.get('stage')} among {', '.join(act.get('entrants') or [])}"
    if kind == "shootout-round":
        who = ", ".join(act.get("entrants") or [])
        return f"shoot-out round {act.get('round')} of stage {act.get('stage')} among {who}"
    return str(kind)


def cmd_undo(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        if not d.event.applied:
            raise UserError("there is nothing to undo")
        n, act = d.event.applied[-1]
        d.undo()
        out.write(f"undone: entry {n}, {_describe(d.event, act)}\n")
    return 0


def _shootout_matches(d: Director, st: Stage, path: str, out: TextIO) -> int:
    """`shootout FILE STAGE`: the shoot-out matches the stage's standings need, made and listed."""
    ids = d.shootout_matches(st.name)
    ev = d.event
    if not ids:
        playing = ev.shootouts_playing(st)
        if playing:
            left = [i for r in playing for i in r.matches if not ev.matches[i].decided]
            out.write(f"no new shoot-out in stage {st.name}: {', '.join(left)} still to play\n")
        else:
            out.write(f"no tie in stage {st.name} awaits a shoot-out\n")
        return 0
    pucks = pichenotte_rules(st.rules).shootout_pucks  # (only a Pichenotte stage has shoot-out matches)
    for rnd in st.shootout_rounds:
        if not set(rnd.matches) & set(ids):
            continue
        kind = "one match" if len(rnd.matches) == 1 else "every pair once"
        out.write(f"shoot-out round {rnd.number} of stage {st.name}, {', '.join(rnd.entrants)} ({kind}):\n")
        rows = [(i, ev.matches[i].sides[0], "vs", ev.matches[i].sides[1]) for i in rnd.matches]
        out.write("\n".join(grid(["Match", "Entrant", "", "Entrant"], rows)) + "\n")
    out.write(
        f"Each is a twenties shoot-out on the engine (match format shootout, {st.rules}: {pucks} pucks each, then "
        "one each until it breaks).\n"
        f"Next: flickboard tournament assign {path} --auto BOARD ... (or a result typed: "
        f"flickboard tournament result {path} MATCH WINNER --shootout a-b)\n"
    )
    return 0


def cmd_shootout(args: argparse.Namespace, out: TextIO) -> int:
    with open_director(args.file) as d:
        st = find_stage(d.event, args.stage)
        if not args.scores:
            return _shootout_matches(d, st, args.file, out)
        who, counts = [], []
        for item in args.scores:
            name, sep, num = item.rpartition("=")
            if not sep or not num.strip().isdigit():
                raise UserError(f"each shoot-out score is NAME=TWENTIES (e.g. Ana=5), not {item!r}")
            who.append(find_entrant(d.event, name.strip()))
            counts.append(int(num))
        d.shootout(st.name, who, counts)
        out.write(f"shoot-out in stage {st.name}: " + ", ".join(f"{w} {c}" for w, c in zip(who, counts, strict=True)))
        out.write("\n")
        if st.format in BRACKETS:
            return 0
        out.write("\n".join(stage_standings(d.event, st, args.file)) + "\n")
    return 0


# ---------------------------------------------------------------- the commands that only read


def cmd_standings(args: argparse.Namespace, out: TextIO) -> int:
    ev = read_event(args.file)
    if args.stage:
        lines = stage_standings(ev, find_stage(ev, args.stage), args.file)
    elif not ev.stages:
        rows = [(e.seed or "", e.name, e.club or "", e.status) for e in ev.entrants.values()]
        lines = [
            f"{ev.name}: {len(rows)} entrants, no stage started yet",
            *grid(["Seed", "Entrant", "Club", ""], rows),
        ]
    elif len(ev.stages) == 1:
        lines = stage_standings(ev, next(iter(ev.stages.values())), args.file)
    else:
        lines = final_lines(ev)
    out.write("\n".join(lines) + "\n")
    return 0


def cmd_bracket(args: argparse.Namespace, out: TextIO) -> int:
    ev = read_event(args.file)
    if args.stage is None:
        found = [st for st in ev.stages.values() if st.format in BRACKETS]
        if not found:
            raise UserError("no bracket has started (a single- or double-elimination stage)")
        st = found[-1]
    else:
        st = find_stage(ev, args.stage)
    out.write("\n".join(bracket_lines(ev, st, _columns(out))) + "\n")
    return 0


def _columns(out: TextIO) -> int | None:
    """The terminal's width when `out` is one; None for a file or a pipe (a printout takes the whole drawing)."""
    try:
        return shutil.get_terminal_size().columns if out.isatty() else None
    except (AttributeError, ValueError, OSError):
        return None


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    ev = read_event(args.file)
    out.write("\n".join(show_lines(ev, args.file)) + "\n")
    return 0


def _write(target: str, data: bytes, out: TextIO) -> None:
    if target == "-":
        out.write(data.decode("utf-8"))
        return
    try:
        with open(target, "wb") as f:
            f.write(data)
    except OSError as e:
        raise UserError(f"cannot write {target}: {e.strerror or e}") from None
    print(f"wrote {target}", file=sys.stderr)


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    if not (args.csv or args.standings or args.json or args.archive):
        raise UserError("say what to write: --csv FILE, --standings FILE, --json FILE and/or --archive FILE.zip")
    ev = read_event(args.file)
    if args.csv:
        _write(args.csv, exports.results_csv(ev).encode("utf-8"), out)
    if args.standings:
        _write(args.standings, exports.standings_csv(ev).encode("utf-8"), out)
    if args.json:
        _write(args.json, dumps(ev), out)
    if args.archive:
        try:
            with open(args.file, "rb") as f:
                data = f.read()
            manifest = exports.write_archive(args.archive, data, os.path.dirname(os.path.abspath(args.file)))
        except OSError as e:
            raise UserError(f"cannot write {args.archive}: {e.strerror or e}") from None
        files = manifest["files"]
        games_in = len(manifest["evidence"])
        journals = f"{games_in} game journal" + ("" if games_in == 1 else "s")
        print(f"wrote {args.archive}: {len(files) + 1} files, {journals}", file=sys.stderr)
        for missing in manifest["missing"]:
            print(f"warning: the game journal {missing} named as evidence was not found", file=sys.stderr)
    return 0
