"""The parser of `flickboard tournament ACTION FILE ...`: every action with its arguments and its command, and what a
bare `flickboard tournament` says."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TextIO

from flickboard.cli.tournament.commands import (
    cmd_add,
    cmd_assign,
    cmd_bracket,
    cmd_correct,
    cmd_disqualify,
    cmd_export,
    cmd_new,
    cmd_pair,
    cmd_rename,
    cmd_result,
    cmd_shootout,
    cmd_show,
    cmd_standings,
    cmd_start,
    cmd_substitute,
    cmd_undo,
    cmd_walkover,
    cmd_withdraw,
)
from flickboard.cli.tournament.hall import cmd_run, configure_run
from flickboard.errors import UserError
from flickboard.tournament import TIEBREAKS
from flickboard.tournament.event import FORMATS


def configure_parser(p: argparse.ArgumentParser) -> None:
    """`flickboard tournament ACTION FILE ...`"""
    sub = p.add_subparsers(dest="action", metavar="ACTION")

    def cmd(name: str, func: Callable[[argparse.Namespace, TextIO], int], help: str) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help, description=help)
        c.add_argument("file", metavar="FILE", help="the tournament's journal (e.g. spring-open.jsonl)")
        c.set_defaults(func=func)
        return c

    c = cmd("new", cmd_new, "start a new tournament in FILE")
    c.add_argument("--name", required=True, help='the event\'s name, e.g. "Spring Open"')

    c = cmd("add", cmd_add, "register an entrant, or every entrant of a CSV file")
    c.add_argument("name", nargs="?", metavar="NAME")
    c.add_argument("--partner", metavar="NAME", help="a doubles partner: the team is 'NAME & PARTNER'")
    c.add_argument("--seed", type=int, metavar="N", help="1 = the best; unseeded entrants are drawn")
    c.add_argument("--club", metavar="C")
    c.add_argument("--from", dest="from_csv", metavar="CSV", help="a CSV with columns name, partner, seed, club")

    for name, func, what in (
        ("withdraw", cmd_withdraw, "an entrant leaves: unplayed matches are lost by walkover"),
        ("disqualify", cmd_disqualify, "disqualify an entrant: unplayed matches are lost by walkover"),
    ):
        c = cmd(name, func, what)
        c.add_argument("entrant", metavar="NAME")
        c.add_argument("--reason", default="", help="why (kept in the journal)")

    c = cmd("rename", cmd_rename, "an entrant's new name, everywhere from now on (a singles entrant's player too)")
    c.add_argument("entrant", metavar="NAME")
    c.add_argument("name", metavar="NEW_NAME", help="quote a name of several words: 'Marie-Claire O'\\''Neil'")
    c = cmd("substitute", cmd_substitute, "a doubles team's player replaced by another (the team keeps its results)")
    c.add_argument("entrant", metavar="TEAM")
    c.add_argument("out", metavar="PLAYER", help="the player who leaves the team")
    c.add_argument("player", metavar="NEW_PLAYER", help="the player who takes their place")

    c = cmd("start", cmd_start, "start a stage: its format, who enters, the game and the tie-breaks")
    c.add_argument("stage", metavar="STAGE", help="the stage's name, e.g. swiss, final")
    c.add_argument("--format", required=True, choices=FORMATS)
    c.add_argument("--rounds", type=int, metavar="N", help="Swiss: how many rounds")
    c.add_argument("--pools", type=int, metavar="N", help="pools: how many")
    c.add_argument(
        "--reset",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="double elimination: a second grand final if the losers bracket's champion wins the first (the default)",
    )
    c.add_argument("--top", type=int, metavar="N", help="with --from: the first N of that stage (of each pool)")
    c.add_argument("--from", dest="from_stage", metavar="STAGE", help="the finished stage the entrants come from")
    c.add_argument("--game", help="pichenotte (default), quebec or flicochet")
    c.add_argument("--rules", metavar="R", help="the rule set (default: the game's; flickboard rules list)")
    c.add_argument(
        "--match", metavar="M", help="the match format (Pichenotte: games:N, wins:N ...; others: the target)"
    )
    c.add_argument("--tiebreaks", metavar="a,b,c", help=f"the chain, in order, of: {', '.join(TIEBREAKS)} (or none)")

    c = cmd("pair", cmd_pair, "pair the next round of a Swiss stage and print it")
    c.add_argument("stage", metavar="STAGE")
    c.add_argument("--boards", nargs="+", metavar="BOARD", help="put the round's matches on these boards, in order")

    c = cmd("assign", cmd_assign, "put a match on a board; --auto: the free boards take the next matches")
    c.add_argument("targets", nargs="*", metavar="MATCH BOARD")
    c.add_argument(
        "--auto", nargs="+", metavar="BOARD", help="these free boards take the next matches, longest-waiting first"
    )

    for name, func, what in (
        ("result", cmd_result, "a match's result"),
        ("correct", cmd_correct, "replace a match's result (the old one stays in the journal)"),
    ):
        c = cmd(name, func, what)
        c.add_argument("match", metavar="MATCH")
        c.add_argument("winner", metavar="WINNER")
        c.add_argument("--games", metavar="a-b", help="games won, in the order of the match's sides")
        c.add_argument("--points", metavar="a-b", help="points scored, in the order of the match's sides")
        c.add_argument("--twenties", metavar="a-b", help="twenties, in the order of the match's sides")
        c.add_argument("--confirmed", action="store_true", help="the twenties were checked: they count in tie-breaks")
        c.add_argument("--shootout", metavar="a-b", help="the match's own twenties shoot-out (R-1-B)")
        c.add_argument("--journal", metavar="GAME_JOURNAL", help="the game's journal, kept as evidence")
        if name == "correct":
            c.add_argument("--reason", default="", help="why (kept in the journal)")
            c.add_argument("--walkover", action="store_true", help="the match was in fact won by walkover")

    c = cmd("walkover", cmd_walkover, "a match won without playing")
    c.add_argument("match", metavar="MATCH")
    c.add_argument("winner", metavar="WINNER")
    c.add_argument("--reason", default="")

    cmd("undo", cmd_undo, "take back the last act (a new entry; nothing is erased)")

    c = cmd(
        "shootout",
        cmd_shootout,
        "a twenties shoot-out among tied entrants (R-1-B): without scores, the shoot-out matches the standings need "
        "(played on the boards, scored by the engine); NAME=TWENTIES ...: one played on paper",
    )
    c.add_argument("stage", metavar="STAGE")
    c.add_argument("scores", nargs="*", metavar="NAME=TWENTIES")

    c = cmd("standings", cmd_standings, "a stage's table with its tie-breaks, or the event's final standings")
    c.add_argument("stage", nargs="?", metavar="STAGE")

    c = cmd("bracket", cmd_bracket, "an elimination stage's bracket")
    c.add_argument("stage", nargs="?", metavar="STAGE")

    cmd("show", cmd_show, "the event at a glance: stages, matches on the boards, matches waiting")

    c = cmd("export", cmd_export, "results and standings as CSV, the JSON document, the whole event as a zip")
    c.add_argument("--csv", metavar="FILE", help="every match's result ('-': stdout)")
    c.add_argument("--standings", metavar="FILE", help="the standings ('-': stdout)")
    c.add_argument("--json", metavar="FILE", help="the event's JSON document ('-': stdout)")
    c.add_argument("--archive", metavar="FILE", help="a zip: the journals, the documents, a manifest of sha256 sums")

    configure_run(cmd("run", cmd_run, "the hall: open each assigned match on its board, take the boards' results"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Without an action: say which there are."""
    raise UserError(
        "say what to do: flickboard tournament new | add | rename | substitute | withdraw | disqualify | start | "
        "pair | assign | result | walkover | correct | undo | shootout | standings | bracket | show | export | run "
        "(see: flickboard tournament --help)"
    )
