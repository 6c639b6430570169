"""The `flickboard` command. Every subcommand prints progress and plain one-line errors, never a traceback
(set FLICKBOARD_DEBUG=1 to see one)."""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from importlib import resources
from typing import NoReturn, TextIO

from host.core import journal, render
from host.core.journal import JournalError
from host.core.scoreboard import PROMPT_MOMENTS, moment_text, moments
from host.core.session import Fold, Session, fold_entries, fold_records, game_of
from host.errors import UserError
from rules import games
from rules.base import Source
from rules.games import AnyGame
from rules.transcript import TranscriptError, format_header, parse_transcript

# ---------------------------------------------------------------- loading games


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UserError(f"{path} is a directory, not a transcript or a journal") from None
    except UnicodeDecodeError:
        raise UserError(f"{path} is neither a transcript nor a journal (it is not UTF-8 text)") from None
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror or e}") from None


SAMPLES = {
    "pichenotte": "club-night.pich",
    "pichenottes-quebec": "quebec-warmup.pich",
    "flicochet": "flicochet-quick.pich",
}


def sample_path(game: str = "pichenotte") -> str:
    """A bundled example transcript of a game (host/samples/)."""
    return str(resources.files("host").joinpath("samples", SAMPLES[games.game_name(game)]))


def load(path: str) -> tuple[AnyGame, Fold, dict[str, list[str]], list[str]]:
    """A transcript or a journal, folded. Returns the game, the fold, the header and warnings."""
    warnings: list[str] = []
    is_journal = _is_journal(path)
    if is_journal:
        snap = journal.read(path)
        torn = snap.torn_message()
        if torn:
            warnings.append(torn)
        try:
            game = game_of(snap.header, path)
        except ValueError as e:
            raise UserError(str(e)) from None
        header = snap.header["header"]  # as stored, extra tags (Event, Date...) included
        records = snap.records
        where = {r["n"]: f"entry {r['n']}" for r in records}
    else:
        try:
            t = parse_transcript(_read_text(path), os.path.basename(path))
        except TranscriptError as e:
            raise UserError(str(e)) from None
        header = t.header
        game = _game_from_header(header, path)
        manual: Source = "manual"  # a line's own '@sensor' mark still counts
        entries = [(i, text, manual) for i, (_, text) in enumerate(t.lines, 1)]
        where = {i: f"line {lineno}" for i, (lineno, _) in enumerate(t.lines, 1)}
    fold = fold_records(game, records) if is_journal else fold_entries(game, entries)
    for n, text, reason in fold.rejected:
        warnings.append(f"{os.path.basename(path)} {where[n]}: refused '{text}': {reason}")
    return game, fold, header, warnings


def _game_from_header(header: dict[str, list[str]], path: str) -> AnyGame:
    try:
        return games.from_header(header)
    except ValueError as e:
        raise UserError(f"{path}: {e}") from None


def _is_journal(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(1) == b"{"
    except OSError:
        return False


# ---------------------------------------------------------------- commands


def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    try:
        kinds = [games.game_name(args.game)] if args.game else list(games.GAMES)
        if args.action == "list" or args.action is None:
            for kind in kinds:
                game = games.GAMES[kind]
                out.write(f"{game.title} (--game {kind}; {game.seeds}; default rule set {game.default_rules}):\n")
                for name, summary in game.rule_sets():
                    out.write(f"  {name:<22} {summary}\n")
                out.write("\n")
            out.write("flickboard rules show NAME  prints a rule set's options.\n")
            return 0
        if not args.name:
            raise UserError("which rule set? flickboard rules show NAME (see: flickboard rules list)")
        kind = kinds[0] if args.game else games.find_rules(args.name)
        name, summary, rows = games.describe(kind, args.name)
    except ValueError as e:
        raise UserError(str(e)) from None
    out.write(f"{games.title(kind)} · {name}: {summary}\n\n")
    for k, v in rows:
        out.write(f"  {k:<32} {v}\n")
    return 0


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    try:
        path = sample_path(args.sample) if args.sample else args.file
    except ValueError as e:
        raise UserError(str(e)) from None
    if not path:
        raise UserError("give a transcript or journal to replay (or --sample)")
    game, fold, _, warnings = load(path)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    doc = game.summary(fold.state, len(fold.rejected))
    if args.json:
        out.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        if args.sample:
            out.write(f"Replaying the bundled sample game ({os.path.basename(path)}):\n\n")
        out.write(render.scoreboard(doc) + "\n")
        if not doc["over"]:
            out.write("next: " + render.prompt_line(doc) + "\n")
    return 1 if args.strict and fold.rejected else 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    if not (args.csv or args.json or args.transcript):
        raise UserError("say what to write: --csv FILE, --json FILE and/or --transcript FILE ('-' for stdout)")
    game, fold, header, warnings = load(args.file)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    fields, rows = game.log(fold.state)
    if args.csv:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(fields))
        writer.writeheader()
        writer.writerows(rows)
        _write(args.csv, buf.getvalue(), out)
    if args.json:
        doc = {"summary": game.summary(fold.state, len(fold.rejected)), game.log_name: rows}
        _write(args.json, json.dumps(doc, indent=2, ensure_ascii=False) + "\n", out)
    if args.transcript:
        lines = [format_header(header), ""]
        for a in fold.stack:
            lines.append(game.format(a.line) + (" @sensor" if a.source == "sensor" else ""))
        _write(args.transcript, "\n".join(lines) + "\n", out)
    return 0


def cmd_sim(args: argparse.Namespace, out: TextIO) -> int:
    from host.sim import simulator

    try:
        return simulator.run(args, out)
    except simulator.SimError as e:
        raise UserError(str(e)) from None


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    from host.sim import demo

    try:
        return demo.run(args, out)
    except demo.DemoError as e:
        raise UserError(f"demo: {e}") from None


def _integrations(args: argparse.Namespace, out: TextIO) -> int:
    from host.displays.integrations.runner import run_integrations

    return run_integrations(args, out)


def _bridge_command(name: str) -> Callable[[argparse.Namespace, TextIO], int]:
    def run(args: argparse.Namespace, out: TextIO) -> int:
        from host.cli import bridge as bridge_cli

        result: int = getattr(bridge_cli, name)(args, out)
        return result

    return run


def _write(target: str, text: str, out: TextIO) -> None:
    if target == "-":
        out.write(text)
        return
    try:
        with open(target, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as e:
        raise UserError(f"cannot write {target}: {e}") from None
    print(f"wrote {target}", file=sys.stderr)


# The prompt's own words, after the game's notation (its `notation_help`) in `help`.
PROMPT_HELP = """  score   the full scoreboard    status   the short one    help   this text    quit   leave (or Ctrl-D)
Every input is saved in the journal before it counts; a refused input changes nothing."""

COMMANDS = {
    "quit": ("quit", "exit", "q"),
    "help": ("help", "?", "h"),
    "score": ("score", "scoreboard", "s"),
    "status": ("status", "st"),
}


def _help_text(game: AnyGame) -> str:
    return f"{game.notation_help}\n{PROMPT_HELP}"


def _slug(names: Sequence[str]) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9]+", "", n).lower() or "p" for n in names)


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    if args.resume:
        path = args.resume
        if args.players or args.journal or args.game:
            raise UserError("--resume continues a journal as it was set up: leave out --game, --players and --journal")
        if os.path.isdir(path):
            raise UserError(f"{path} is a directory, not a journal")
        if os.path.exists(path) and not _is_journal(path):
            raise UserError(
                f"{path} is not a journal (a journal is the .jsonl file 'play' writes); "
                f"to score a transcript use: flickboard replay {path}"
            )
        try:
            session = Session.resume(path)
        except ValueError as e:
            raise UserError(str(e)) from None
        replayed = session.journal.count
        if session.journal.torn:
            out.write(f"note: {session.journal.torn.message()}\n")
        refused = len(session.fold.rejected)
        out.write(f"Resumed {path}: {replayed} entries replayed" + (f" ({refused} refused)" if refused else "") + ".\n")
        if session.fold.stack:
            top = session.fold.stack[-1]
            out.write(f"Last input in effect: [{top.n}] {session.game.format(top.line)}\n")
    else:
        if not args.players:
            try:
                usage = games.get(args.game).players_usage
            except games.GameError:  # said once the players are named
                usage = games.get(None).players_usage
            raise UserError(f"name the players: {usage}")
        try:
            game = games.create(
                args.game,
                args.players,
                rules=args.rules,
                sides=args.sides,
                match=args.match,
                target=args.target,
                first=args.breaker,
                teams=args.teams,
            )
        except ValueError as e:
            raise UserError(str(e)) from None
        path = args.journal or os.path.join(
            "journals", datetime.datetime.now().strftime("%Y%m%d-%H%M%S-") + _slug(args.players) + ".jsonl"
        )
        if os.path.isdir(path):
            example = os.path.join(path, "match.jsonl")
            raise UserError(f"--journal {path} is a directory: give a file name, e.g. {example}")
        if os.path.lexists(path):
            raise UserError(
                f"{path} already exists: continue it with 'flickboard play --resume {path}' or choose another --journal"
            )
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create the folder for {path}: {e.strerror or e}") from None
        session = Session.create(path, game)
        out.write(f"New match, journal {path}\n(after a crash: flickboard play --resume {path})\n")
    with session.journal:
        return _play_loop(session, out, sys.stdin)


class _Prompter:
    """Reads one input line. On a terminal it uses readline (line editing, history, Tab completes the
    notation and the names); piped input is read plainly and echoed after the prompt, so a log reads well."""

    def __init__(self, session: Session, out: TextIO, inp: TextIO) -> None:
        self.out, self.inp = out, inp
        self.tty = _isatty(inp)
        self.readline = False
        if self.tty and inp is sys.stdin and out is sys.stdout:
            try:
                import readline
            except ImportError:  # pragma: no cover - platforms without readline
                return
            words = sorted({*session.game.words(), *(w for ws in COMMANDS.values() for w in ws if len(w) > 2)})

            def complete(text: str, state: int) -> str | None:
                hits = [w + " " for w in words if w.lower().startswith(text.lower())]
                return hits[state] if state < len(hits) else None

            readline.set_completer(complete)
            readline.set_completer_delims(" \t")
            if "libedit" in (readline.__doc__ or ""):  # pragma: no cover - macOS
                readline.parse_and_bind("bind ^I rl_complete")
            else:
                readline.parse_and_bind("tab: complete")
            self.readline = True

    def read(self) -> str | None:
        """The next line without its newline, or None at end of input."""
        if self.readline:
            self.out.flush()
            try:
                return input("> ")
            except EOFError:
                self.out.write("\n")
                return None
        self.out.write("> ")
        self.out.flush()
        line = self.inp.readline()
        if not line:
            self.out.write("\n")
            return None
        line = line.rstrip("\r\n")
        if not self.tty:
            self.out.write(line.rstrip() + "\n")
        return line


def _isatty(f: TextIO) -> bool:
    try:
        return f.isatty()
    except (AttributeError, ValueError):
        return False


def _play_loop(session: Session, out: TextIO, inp: TextIO) -> int:
    game = session.game
    out.write(
        f"{game.title} · {game.options.name}: {game.options.summary}\nType 'help' for the notation, 'quit' to stop.\n\n"
    )
    prompter = _Prompter(session, out, inp)
    doc = session.summary()
    out.write(render.status(doc) + "\n")
    while True:
        out.write(render.prompt_line(doc) + "\n")
        try:
            line = prompter.read()
        except KeyboardInterrupt:
            out.write("\n")
            break
        if line is None:
            break
        word = line.strip().lower()
        if word in COMMANDS["quit"]:
            break
        if word in COMMANDS["help"]:
            out.write(_help_text(game) + "\n")
            continue
        if word in COMMANDS["score"]:
            out.write(render.scoreboard(doc) + "\n")
            continue
        if word in COMMANDS["status"]:
            out.write(render.status(doc) + "\n")
            continue
        if not word or word.startswith("#"):
            continue
        result = session.submit(line)
        doc = session.summary()
        if result.accepted:
            out.write(f"  ok [{result.n}] {result.message}\n")
            for m in moments("", session.game, result):
                note = moment_text(m) if m["type"] in PROMPT_MOMENTS else ""
                if note:
                    out.write(f"  {note}\n")
        else:
            out.write(f"  refused [{result.n}]: {result.message}{_hint(session, line)}\n")
        out.write(render.status(doc) + "\n")
    out.write(f"Journal saved: {session.journal.path}\n")
    out.flush()
    return 0


def _hint(session: Session, line: str) -> str:
    """For a line that does not start with a word of the notation or a name: where to look."""
    first = line.split()[0].lower()
    game = session.game
    names = {n.lower() for n in (*game.setup.players, *game.side_names)}
    if first in game.keywords or ":" in first or first in names:
        return ""
    return " (type 'help' for the notation)"


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
    pl.add_argument("--match", help="Pichenotte: wins:N, wins:N/M, wins:N:shootout, games:N or points:N")
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
    br.add_argument("--boards", help="board ids to follow, comma-separated (default: every board that shows up)")
    br.add_argument("--client-id", help="MQTT client id (default: flickboard-bridge)")
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
    en.add_argument("line", nargs="*", help="the entry, in the notation (e.g. hit, Ana 15 10 5, undo)")
    en.add_argument("--mqtt", required=True, metavar="URL")
    en.add_argument("--ca-file")
    en.add_argument("--board", required=True, help="the board whose game it is for")
    en.add_argument("--new", action="store_true", help="start a new match on the board instead (--players ...)")
    en.add_argument("--rules", help="with --new: the rule set, which names the game (default: the bridge's)")
    en.add_argument("--players", nargs="+", metavar="NAME")
    en.add_argument("--match", help="with --new: Pichenotte's match format")
    en.add_argument("--target", help="with --new: the points a Québec or Flicochet game is played to")
    en.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the answer (default 10)")
    en.set_defaults(func=_bridge_command("run_enter"))

    sb = sub.add_parser("scoreboard", help="show a board's live scoreboard from MQTT in the terminal")
    sb.add_argument("--mqtt", required=True, metavar="URL")
    sb.add_argument("--ca-file")
    sb.add_argument("--board", required=True)
    sb.add_argument("--once", action="store_true", help="print the current scoreboard and exit")
    sb.add_argument("--plain", action="store_true", help="the plain text view, even on a terminal")
    sb.add_argument("--big", action="store_true", help="the big view, even into a pipe")
    sb.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="side colours (default: auto)")
    sb.add_argument("--timeout", type=float, default=5.0, help="with --once: seconds to wait (default 5)")
    sb.set_defaults(func=_bridge_command("run_scoreboard"))

    wb = sub.add_parser("web", help="the TV scoreboard and the phone entry page, live from MQTT (docs/displays.md)")
    from host.displays.web import configure_parser as configure_web
    from host.displays.web import run_web

    configure_web(wb)
    wb.set_defaults(func=run_web)

    ig = sub.add_parser(
        "integrations", help="Home Assistant discovery, an AWTRIX 3 app, WLED effects (docs/integrations.md)"
    )
    from host.displays.integrations.runner import configure_parser as configure_integrations

    configure_integrations(ig)
    ig.set_defaults(func=_integrations)

    ac = sub.add_parser("accuracy", help="a board journal's sensor evidence against the recorded truth, per sensor")
    from host.cli.accuracy import configure_parser as configure_accuracy
    from host.cli.accuracy import run_accuracy

    configure_accuracy(ac)
    ac.set_defaults(func=run_accuracy)

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
