"""`flickboard web`: its options, and the command that serves until Ctrl-C, SIGTERM or SIGHUP.

    flickboard web --mqtt mqtt://localhost             # http://127.0.0.1:8080/
    flickboard web --mqtt mqtt://localhost --tournament spring.tournament   # and the tournament's pages

Errors are one line on stderr (exit 2), never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import TYPE_CHECKING, Any, TextIO

from flickboard import i18n, lifecycle
from flickboard.config import ConfigError, add_broker_arguments, board_problem, broker_of
from flickboard.displays.web.config import WebConfig, WebError
from flickboard.displays.web.key import (
    KEY_ENV,
    ORGANISER_ENV,
    issue_scorer_key,
    load_key,
    revoke_scorer_key,
    shown_key,
)

if TYPE_CHECKING:
    from flickboard.displays.web.server import PagesMaker


def configure_parser(p: argparse.ArgumentParser) -> None:
    """The options of `flickboard web`."""
    add_broker_arguments(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0: all)")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (default 8080)")
    p.add_argument(
        "--board", action="append", metavar="ID", help="show only this board (repeatable; default: every board)"
    )
    p.add_argument(
        "--key-file",
        metavar="FILE",
        help=f"keep the scoring key in FILE (made the first time), so it stays across restarts; or set {KEY_ENV}. "
        "Default: a new key on every start",
    )
    p.add_argument(
        "--organiser-key-file",
        metavar="FILE",
        help=f"keep the organiser's key in FILE (made the first time); or set {ORGANISER_ENV}. It opens the "
        "organiser's page and the console, and scores nothing. Default: a new key on every start",
    )
    p.add_argument(
        "--scorer-keys",
        metavar="FILE",
        help="the scorers' keys, each for the boards it was issued for (read again when it changes); "
        "with --issue-key or --revoke-key: change it and exit",
    )
    p.add_argument(
        "--issue-key",
        action="append",
        metavar="BOARD",
        help="with --scorer-keys: issue a new scorer's key for this board (repeat for a list), print it and exit",
    )
    p.add_argument("--revoke-key", metavar="KEY", help="with --scorer-keys: take this scorer's key out and exit")
    p.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        default=[],
        help="one more name the server answers for (a DNS name, a reverse proxy's; repeatable)",
    )
    p.add_argument(
        "--lang",
        metavar="LANG",
        help="the pages' language: en, fr (default: the game's, Québec Pichenottes: fr; else the browser's)",
    )
    p.add_argument(
        "--tournament",
        metavar="FILE",
        help="a tournament journal: its hall screen, entrants' and organiser's pages and score cards, and its hall "
        "(the boards open their assigned matches and report their results)",
    )


def web_config(args: Any) -> WebConfig:
    try:
        url, ca_file = broker_of(args)
    except ConfigError as e:
        raise WebError(str(e)) from None
    boards: tuple[str, ...] | None = None
    if args.board:
        for b in args.board:
            problem = board_problem(b)
            if problem:
                raise WebError(f"--board: {problem}")
        boards = tuple(dict.fromkeys(args.board))
    if not 0 <= args.port <= 65535:
        raise WebError(f"--port must be 0-65535, not {args.port}")
    key, source = load_key(dict(os.environ), getattr(args, "key_file", None))
    organiser, organiser_source = load_key(
        dict(os.environ), getattr(args, "organiser_key_file", None), ORGANISER_ENV, "--organiser-key-file"
    )
    allowed = tuple(h.strip() for h in getattr(args, "allowed_host", None) or [] if h.strip())
    lang = getattr(args, "lang", None)
    if lang and not i18n.known(lang):
        raise WebError(f"--lang {lang}: there is no catalogue for it; the languages are {', '.join(i18n.languages())}")
    return WebConfig(
        url,
        ca_file=ca_file,
        host=args.host,
        port=args.port,
        boards=boards,
        key=key,
        key_source=source,
        organiser_key=organiser,
        organiser_source=organiser_source,
        scorer_keys=getattr(args, "scorer_keys", None),
        allowed_hosts=allowed,
        lang=i18n.known(lang),
    )


def plugged_pages(args: Any) -> list[PagesMaker]:
    """The pages the options plug in: a tournament's (`--tournament FILE`)."""
    path = getattr(args, "tournament", None)
    if path is None:
        return []
    from flickboard.displays.tournament_pages.pages import TournamentPages  # the server's: loaded when it starts

    return [lambda app: TournamentPages(app, path)]


def run_web(args: Any, out: TextIO) -> int:
    """`flickboard web`: serve until Ctrl-C, SIGTERM or SIGHUP. Errors are one line on stderr (exit 2)."""
    from flickboard.displays.web.server import start_web  # the server: loaded when it starts, not by `web --help`

    if getattr(args, "issue_key", None) or getattr(args, "revoke_key", None):
        return _change_keys(args, out)
    stop = threading.Event()
    with lifecycle.on_stop_signals(stop.set):  # before the first line: whoever reads it may stop us at once
        try:
            app = start_web(web_config(args), pages=plugged_pages(args))
        except WebError as e:
            print(f"flickboard web: {e}", file=sys.stderr, flush=True)
            return 2
        try:
            print(f"flickboard web: {app.url}/ (boards seen on {app.cfg.mqtt}); Ctrl-C stops", file=out, flush=True)
            for line in app.links:
                print(line, file=out, flush=True)
            print(f"  Organiser's key: {app.organiser_key} ({app.cfg.organiser_source})", file=out, flush=True)
            print(f"  Organiser's link (for the organiser only): {app.organiser_link}", file=out, flush=True)
            if app.cfg.scorer_keys is not None:
                print(f"  Scorers' keys, each for its boards: {app.cfg.scorer_keys}", file=out, flush=True)
            print(f"  Scoring key: {app.key} ({app.cfg.key_source}); it scores every board", file=out, flush=True)
            print(f"  Scorers' link (for phones, not the TV): {app.scorer_link}", file=out, flush=True)
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            app.stop()
    print("flickboard web: stopped", file=out, flush=True)
    return 0


def _change_keys(args: Any, out: TextIO) -> int:
    """--issue-key BOARD... or --revoke-key KEY on the --scorer-keys file: said in one line; exit 0 (2: refused)."""
    path = getattr(args, "scorer_keys", None)
    try:
        if path is None:
            raise WebError("--issue-key and --revoke-key change a --scorer-keys FILE: name it")
        if args.issue_key and args.revoke_key:
            raise WebError("issue a key or revoke one, not both at once")
        if args.issue_key:
            boards = list(dict.fromkeys(args.issue_key))
            key = issue_scorer_key(path, boards)
            print(f"scorer's key for {', '.join(boards)}: {key} (kept in {path})", file=out, flush=True)
            print(f"  a phone takes it on the entry page, or from {{server}}/scorer?key={key.replace('-', '')}",
                  file=out, flush=True)  # fmt: skip
        else:
            boards = revoke_scorer_key(path, args.revoke_key)
            print(f"revoked the scorer's key {shown_key(args.revoke_key)} (it scored {', '.join(boards)})", file=out)
    except WebError as e:
        print(f"flickboard web: {e}", file=sys.stderr, flush=True)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m flickboard.displays.web ...`: the same as `flickboard web ...`."""
    p = argparse.ArgumentParser(prog="flickboard web", description="the TV scoreboard and the phone entry page")
    configure_parser(p)
    return run_web(p.parse_args(argv), sys.stdout)
