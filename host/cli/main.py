"""The `flickboard` command. Every subcommand prints progress and plain one-line errors, never a traceback
(set FLICKBOARD_DEBUG=1 to see one)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import NoReturn, TextIO

from flickboard.cli.files import cmd_export, cmd_replay, cmd_rules
from flickboard.cli.play import cmd_play
from flickboard.config import add_broker_arguments
from flickboard.core.journal import JournalError
from flickboard.errors import UserError
from flickboard.rules import games


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


def _integrations(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.displays.integrations.runner import run_integrations

    return run_integrations(args, out)


def _bridge_command(name: str) -> Callable[[argparse.Namespace, TextIO], int]:
    def run(args: argparse.Namespace, out: TextIO) -> int:
        from flickboard.cli import bridge as bridge_cli

        result: int = getattr(bridge_cli, name)(args, out)
        return result

    return run


# ---------------------------------------------------------------- entry point


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one plain line (a UserError), not a usage block and a traceback."""

    def error(self, message: str) -> NoReturn:
        sub = self.prog.removeprefix("flickboard").strip()
        where = f"{sub}: " if sub else ""
        raise UserError(f"{where}{message} (see: {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="flickboard", description="Score Pichenotte by hand or from an instrumented board.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("rules", help="list rule sets, or show one's options")
    r.add_argument("action", nargs="?", choices=["list", "show"])
    r.add_argument("name", nargs="?")
    r.add_argument("--game", help=f"only this game's rule sets: {', '.join(games.GAMES)}")
    r.set_defaults(func=cmd_rules)

    pl = sub.add_parser("play", help="keep score interactively (journaled; --resume after a crash)")
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
    pl.add_argument("--journal", help="where to keep the journal (default: journals/DATE-NAMES.jsonl)")
    pl.add_argument("--resume", metavar="JOURNAL", help="continue the match kept in this journal")
    pl.set_defaults(func=cmd_play)

    rp = sub.add_parser("replay", help="replay a transcript or journal and print the scoreboard")
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
    rp.set_defaults(func=cmd_replay)

    ex = sub.add_parser("export", help="write the shot log (CSV, JSON) or a transcript of a game")
    ex.add_argument("file")
    ex.add_argument("--csv", metavar="FILE")
    ex.add_argument("--json", metavar="FILE")
    ex.add_argument("--transcript", metavar="FILE")
    ex.set_defaults(func=cmd_export)

    sm = sub.add_parser("sim", help="run the simulated board: the real firmware, from a scenario or a game")
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

    br = sub.add_parser("bridge", help="follow boards (serial, MQTT), keep their games, publish the scoreboards")
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
    br.set_defaults(func=_bridge_command("run_bridge"))

    en = sub.add_parser("enter", help="send a manual entry to a running bridge over MQTT and print its answer")
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
    en.set_defaults(func=_bridge_command("run_enter"))

    sb = sub.add_parser("scoreboard", help="show a board's live scoreboard from MQTT in the terminal")
    add_broker_arguments(sb)
    sb.add_argument("--board", required=True)
    sb.add_argument("--once", action="store_true", help="print the current scoreboard and exit")
    sb.add_argument("--plain", action="store_true", help="the plain text view, even on a terminal")
    sb.add_argument("--big", action="store_true", help="the big view, even into a pipe")
    sb.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="side colours (default: auto)")
    sb.add_argument("--timeout", type=float, default=5.0, help="with --once: seconds to wait (default 5)")
    sb.set_defaults(func=_bridge_command("run_scoreboard"))

    wb = sub.add_parser("web", help="the TV scoreboard and the phone entry page, live from MQTT (docs/displays.md)")
    from flickboard.displays.web.command import configure_parser as configure_web
    from flickboard.displays.web.command import run_web

    configure_web(wb)
    wb.set_defaults(func=run_web)

    ig = sub.add_parser(
        "integrations", help="Home Assistant discovery, an AWTRIX 3 app, WLED effects (docs/integrations.md)"
    )
    from flickboard.displays.integrations.runner import configure_parser as configure_integrations

    configure_integrations(ig)
    ig.set_defaults(func=_integrations)

    ac = sub.add_parser("accuracy", help="a board journal's sensor evidence against the recorded truth, per sensor")
    from flickboard.cli.accuracy import configure_parser as configure_accuracy
    from flickboard.cli.accuracy import run_accuracy

    configure_accuracy(ac)
    ac.set_defaults(func=run_accuracy)

    tn = sub.add_parser("tournament", help="run a tournament: entrants, stages, pairings, results, standings, exports")
    from flickboard.cli.tournament.parser import configure_parser as configure_tournament
    from flickboard.cli.tournament.parser import run as run_tournament

    tn.set_defaults(func=run_tournament)
    configure_tournament(tn)

    dm = sub.add_parser("demo", help="play a whole game through the simulated board, the bridge and MQTT")
    dm.add_argument("--live", action="store_true", help="play in real time, for a person to watch")
    dm.add_argument("--seed", type=int, help="which random game to play (default: a fixed one)")
    dm.add_argument("--serial-only", action="store_true", help="leave MQTT out: board -> pty -> bridge")
    dm.add_argument("--journals", default="journals", help="where the demo's journal goes (default: journals)")
    dm.add_argument("--rp2", action="store_true", help="the board is the emulated Pico (make demo-rp2; make rp2 first)")
    dm.add_argument("--shots", type=int, metavar="N", help="play only the game's first N sensor shots")
    dm.set_defaults(func=cmd_demo)
    return p


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        func: Callable[[argparse.Namespace, TextIO], int] | None = getattr(args, "func", None)
        if func is None:
            raise UserError(
                "say what to do: flickboard rules | play | replay | export | sim | bridge (see: flickboard --help)"
            )
        return func(args, out)
    except (UserError, JournalError) as e:
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
        if os.environ.get("FLICKBOARD_DEBUG"):
            raise
        print(
            f"flickboard: internal error ({type(e).__name__}: {e}); rerun with FLICKBOARD_DEBUG=1 and report it",
            file=sys.stderr,
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
