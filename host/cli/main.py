"""The `flickboard` command. Every subcommand prints progress and plain one-line errors, never a traceback
(set FLICKBOARD_DEBUG=1 to see one).

A command answers at once: the parser lists every subcommand, but only the one on the command line is set up, and
each one imports its own modules when it is set up or run (tests/system/test_startup.py holds it; docs/performance.md,
figure 9, times it)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import NoReturn, TextIO

from flickboard.errors import UserError

Command = Callable[[argparse.Namespace, TextIO], int]


def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.cli.rules import cmd_rules as run

    return run(args, out)


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.cli.files import cmd_replay as run

    return run(args, out)


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.cli.files import cmd_export as run

    return run(args, out)


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.cli.play import cmd_play as run

    return run(args, out)


def cmd_sim(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.sim import simulator

    try:
        return simulator.run(args, out)
    except simulator.SimError as e:
        raise UserError(str(e)) from None


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.sim import demo

    try:
        return demo.run(args, out)
    except demo.DemoError as e:
        raise UserError(f"demo: {e}") from None


def cmd_bridge(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.cli.bridge import run_bridge

    return run_bridge(args, out)


def cmd_enter(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.cli.remote import run_enter

    return run_enter(args, out)


def cmd_scoreboard(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.cli.remote import run_scoreboard

    return run_scoreboard(args, out)


# ---------------------------------------------------------------- each subcommand's options


def _rules(r: argparse.ArgumentParser) -> None:
    from flickboard.rules import games

    r.add_argument("action", nargs="?", choices=["list", "show"])
    r.add_argument("name", nargs="?")
    r.add_argument("--game", help=f"only this game's rule sets: {', '.join(games.GAMES)}")
    r.add_argument("--lang", metavar="LANG", help="show: en, fr (default: the game's; Québec Pichenottes: fr)")
    r.set_defaults(func=cmd_rules)


def _play(pl: argparse.ArgumentParser) -> None:
    from flickboard.rules import games

    pl.add_argument("--game", help=f"{' | '.join(games.GAMES)} (default: pichenotte; 'quebec' works too)")
    pl.add_argument("--rules", help="rule set (see: flickboard rules list; default: the game's first)")
    pl.add_argument(
        "--players", nargs="+", metavar="NAME", help="2 names, or 4 in clockwise seat order (Flicochet: 2 to 6)"
    )
    pl.add_argument("--sides", nargs=2, metavar="NAME", help="side names (default: the players, or A+C / B+D)")
    pl.add_argument(
        "--match", help="Pichenotte: wins:N, wins:N/M, wins:N:shootout, games:N, points:N or shootout (R-1-B alone)"
    )
    pl.add_argument("--target", help="Québec Pichenottes, Flicochet: the points to play to (default 31; 8 or 12)")
    pl.add_argument("--teams", nargs="+", metavar="COLOUR", help="Flicochet: red or white for each player in order")
    pl.add_argument(
        "--breaker", "--start", help="who breaks (Flicochet: starts) the first game (default: the first player)"
    )
    pl.add_argument(
        "--lang", metavar="LANG", help="the language to speak: en, fr (default: the game's; Québec Pichenottes: fr)"
    )
    pl.add_argument("--journal", help="where to keep the journal (default: journals/DATE-NAMES.jsonl)")
    pl.add_argument("--resume", metavar="JOURNAL", help="continue the match kept in this journal")
    pl.set_defaults(func=cmd_play)


def _replay(rp: argparse.ArgumentParser) -> None:
    rp.add_argument("file", nargs="?")
    rp.add_argument("--json", action="store_true", help="print the summary document (docs/transcript.md)")
    rp.add_argument(
        "--sample",
        nargs="?",
        const="pichenotte",
        metavar="GAME",
        help="replay a bundled sample game: pichenotte (the default), quebec or flicochet",
    )
    rp.add_argument("--strict", action="store_true", help="exit 1 if any input was refused")
    rp.add_argument("--lang", metavar="LANG", help="en, fr (default: the game's; Québec Pichenottes: fr)")
    rp.set_defaults(func=cmd_replay)


def _export(ex: argparse.ArgumentParser) -> None:
    ex.add_argument("file")
    ex.add_argument("--csv", metavar="FILE")
    ex.add_argument("--json", metavar="FILE")
    ex.add_argument("--transcript", metavar="FILE")
    ex.add_argument("--lang", metavar="LANG", help="its warnings: en, fr (default: the game's; Québec Pichenottes: fr)")
    ex.set_defaults(func=cmd_export)


def _sim(sm: argparse.ArgumentParser) -> None:
    sm.add_argument("source", nargs="?", help="a scenario (.json) or a game transcript")
    sm.add_argument("--random-game", action="store_true", help="play a random legal game (see --seed, --rules)")
    sm.add_argument("--seed", type=int, default=1, help="seed of --random-game (the same seed, the same game)")
    sm.add_argument("--rules", default="tournament-2019", help="rule set of --random-game")
    sm.add_argument("--sensor-exact", action="store_true", help="random game: sensor facts as the bridge makes them")
    sm.add_argument("--board", default="sim1", help="the board id on the wire (default: sim1)")
    sm.add_argument("--pty", action="store_true", help="speak behind a pseudo-terminal a bridge can open")
    sm.add_argument("--mqtt", metavar="URL", help="also publish to this broker (mqtt://host:port), in real time")
    sm.add_argument("--realtime", action="store_true", help="run at wall-clock speed")
    sm.add_argument("--run-on", action="store_true", help="keep running after the scenario (until Ctrl-C)")
    sm.add_argument("--write-transcript", metavar="FILE", help="also write the game's transcript (manual inputs)")
    sm.add_argument("--control", metavar="DIR", help="stop at the game's hold points; files in DIR let it go on")
    sm.add_argument(
        "--rp2",
        action="store_true",
        help="play it on the emulated Pico (the real MicroPython rp2 firmware in rp2040js, make rp2) behind a pty",
    )
    sm.set_defaults(func=cmd_sim)


def _bridge(br: argparse.ArgumentParser) -> None:
    br.add_argument("--config", metavar="TOML", help="settings file (docs/mqtt.md); the options below override it")
    br.add_argument("--serial", action="append", metavar="PORT", help="a board's port, or 'auto' (repeatable)")
    br.add_argument("--mqtt", metavar="URL", help="broker: mqtt://[user:pass@]host[:port] or mqtts://...")
    br.add_argument("--ca-file", help="the broker's CA certificate for mqtts:// ('system': the system store)")
    br.add_argument("--password-file", metavar="FILE", help="the broker password, on the file's first line")
    br.add_argument("--boards", help="board ids to follow, comma-separated (default: every board that shows up)")
    br.add_argument(
        "--client-id", help="MQTT client id (default: flickboard-bridge; the secured broker uses the user name)"
    )
    br.add_argument(
        "--bridge-id",
        help="this bridge's name in its topics flickboard/bridge/ID/... and its scoreboards (default: from the client "
        "id); give each bridge on a broker its own",
    )
    br.add_argument("--keepalive", type=int, help="MQTT keepalive in seconds (default: 30)")
    br.add_argument("--journals", help="folder of the boards' journals (default: journals)")
    br.add_argument(
        "--rules", help="rule set of a board's first match; it names the game too (default: tournament-2019)"
    )
    br.add_argument("--players", nargs="+", metavar="NAME", help="players of a board's first match")
    br.add_argument("--match", help="match format of a board's first match (default: the rule set's)")
    br.add_argument("--log-level", help="DEBUG, INFO, WARNING or ERROR (default: INFO)")
    br.add_argument("--stdin", action="store_true", help="read entries from stdin even when it is not a terminal")
    br.set_defaults(func=cmd_bridge)


def _enter(en: argparse.ArgumentParser) -> None:
    from flickboard.config import add_broker_arguments

    en.add_argument(
        "line",
        nargs="*",
        help="the entry, in the notation (e.g. hit, Ana 15 10 5, undo); none: type entries one per line (Tab "
        "completes on a terminal), or give them on stdin",
    )
    add_broker_arguments(en)
    en.add_argument("--board", required=True, help="the board whose game it is for")
    en.add_argument("--new", action="store_true", help="start a new match on the board instead (--players ...)")
    en.add_argument("--rules", help="with --new: the rule set, which names the game (default: the bridge's)")
    en.add_argument("--players", nargs="+", metavar="NAME")
    en.add_argument("--match", help="with --new: Pichenotte's match format")
    en.add_argument("--target", help="with --new: the points a Québec or Flicochet game is played to")
    en.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the answer (default 10)")
    en.set_defaults(func=cmd_enter)


def _scoreboard(sb: argparse.ArgumentParser) -> None:
    from flickboard.config import add_broker_arguments

    add_broker_arguments(sb)
    sb.add_argument("--board", required=True)
    sb.add_argument("--once", action="store_true", help="print the current scoreboard and exit")
    sb.add_argument("--plain", action="store_true", help="the plain text view, even on a terminal")
    sb.add_argument("--big", action="store_true", help="the big view, even into a pipe")
    sb.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="side colours (default: auto)")
    sb.add_argument("--timeout", type=float, default=5.0, help="with --once: seconds to wait (default 5)")
    sb.add_argument("--lang", metavar="LANG", help="en, fr (default: the game's; Québec Pichenottes: fr)")
    sb.set_defaults(func=cmd_scoreboard)


def _web(wb: argparse.ArgumentParser) -> None:
    from flickboard.displays.web.command import configure_parser, run_web

    configure_parser(wb)
    wb.set_defaults(func=run_web)


def _integrations(ig: argparse.ArgumentParser) -> None:
    from flickboard.displays.integrations.runner import configure_parser, run_integrations

    configure_parser(ig)
    ig.set_defaults(func=run_integrations)


def _accuracy(ac: argparse.ArgumentParser) -> None:
    from flickboard.cli.accuracy import configure_parser, run_accuracy

    configure_parser(ac)
    ac.set_defaults(func=run_accuracy)


def _tournament(tn: argparse.ArgumentParser) -> None:
    from flickboard.cli.tournament.parser import configure_parser, run

    tn.set_defaults(func=run)
    configure_parser(tn)


def _flash(fl: argparse.ArgumentParser) -> None:
    from flickboard.cli.flash import configure_parser, run_flash

    configure_parser(fl)
    fl.set_defaults(func=run_flash)


def _watch(wt: argparse.ArgumentParser) -> None:
    from flickboard.cli.watch import configure_parser, run_watch

    configure_parser(wt)
    wt.set_defaults(func=run_watch)


def _serve(sv: argparse.ArgumentParser) -> None:
    from flickboard.cli.serve import configure_parser, run_serve

    configure_parser(sv)
    sv.set_defaults(func=run_serve, parsers=build_parser)  # serve checks each part's options with its parser


def _demo(dm: argparse.ArgumentParser) -> None:
    dm.add_argument("--live", action="store_true", help="play in real time, for a person to watch")
    dm.add_argument("--seed", type=int, help="which random game to play (default: a fixed one)")
    dm.add_argument("--serial-only", action="store_true", help="leave MQTT out: board -> pty -> bridge")
    dm.add_argument("--journals", default="journals", help="where the demo's journal goes (default: journals)")
    dm.add_argument("--rp2", action="store_true", help="the board is the emulated Pico (make demo-rp2; make rp2 first)")
    dm.add_argument("--shots", type=int, metavar="N", help="play only the game's first N sensor shots")
    dm.set_defaults(func=cmd_demo)


# name: (the line in `flickboard --help`, what sets up its options), in the order --help lists them
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "rules": ("list rule sets, or show one's options", _rules),
    "play": ("keep score interactively (journaled; --resume after a crash)", _play),
    "replay": ("replay a transcript or journal and print the scoreboard", _replay),
    "export": ("write the shot log (CSV, JSON) or a transcript of a game", _export),
    "sim": ("run the simulated board: the real firmware, from a scenario or a game", _sim),
    "bridge": ("follow boards (serial, MQTT), keep their games, publish the scoreboards", _bridge),
    "enter": ("send a manual entry to a running bridge over MQTT and print its answer", _enter),
    "scoreboard": ("show a board's live scoreboard from MQTT in the terminal", _scoreboard),
    "web": ("the TV scoreboard and the phone entry page, live from MQTT (docs/displays.md)", _web),
    "integrations": ("Home Assistant discovery, an AWTRIX 3 app, WLED effects (docs/integrations.md)", _integrations),
    "accuracy": ("a board journal's sensor evidence against the recorded truth, per sensor", _accuracy),
    "tournament": ("run a tournament: entrants, stages, pairings, results, standings, exports", _tournament),
    "serve": ("run a site from one file: bridge, pages, integrations, hall; each part kept running", _serve),
    "demo": ("play a whole game through the simulated board, the bridge and MQTT", _demo),
    "flash": ("put the firmware on a board over USB (or into a folder, --to)", _flash),
    "watch": ("every sensor of a board on USB, live, for the bench test (hardware/README.md)", _watch),
}


# ---------------------------------------------------------------- entry point


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one plain line (a UserError), not a usage block and a traceback."""

    def error(self, message: str) -> NoReturn:
        sub = self.prog.removeprefix("flickboard").strip()
        where = f"{sub}: " if sub else ""
        raise UserError(f"{where}{message} (see: {self.prog} --help)")


EVERY = "*"  # build_parser(EVERY): every subcommand set up


def build_parser(command: str | None = EVERY) -> argparse.ArgumentParser:
    """The parser; `command` names the one subcommand whose options are set up (EVERY: all of them, None: none, as
    `flickboard --help` needs)."""
    p = _Parser(prog="flickboard", description="Score Pichenotte by hand or from an instrumented board.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, (what, configure) in COMMANDS.items():
        c = sub.add_parser(name, help=what)
        if command in (EVERY, name):
            configure(c)
    return p


def chosen(argv: Sequence[str]) -> str | None:
    """The subcommand the command line names (the first word; the top level has no option that takes a value)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def _journal_error(e: Exception) -> bool:
    """A journal's own error (a sentence for the user), without loading the journal for a command that has none."""
    journal = sys.modules.get("flickboard.core.journal")
    return journal is not None and isinstance(e, journal.JournalError)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(chosen(words))
    try:
        args = parser.parse_args(words)
        func: Command | None = getattr(args, "func", None)
        if func is None:
            raise UserError(
                "say what to do: flickboard rules | play | replay | export | sim | bridge (see: flickboard --help)"
            )
        return func(args, out)
    except UserError as e:
        print(f"flickboard: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nflickboard: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `flickboard ... | head`: stop quietly, and keep Python from complaining at exit
        if out is sys.stdout:
            with suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # never a traceback for a user
        if _journal_error(e):
            print(f"flickboard: {e}", file=sys.stderr)
            return 2
        if os.environ.get("FLICKBOARD_DEBUG"):
            raise
        print(
            f"flickboard: internal error ({type(e).__name__}: {e}); rerun with FLICKBOARD_DEBUG=1 and report it",
            file=sys.stderr,
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
