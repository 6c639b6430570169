"""`flickboard tournament run FILE --mqtt URL [--boards a,b]`: the hall (host/tournament/hall.py) as a command. It opens
every match assigned to a board on that board's bridge and appends each board's result to the tournament journal,
printing each opened match, each result, each refusal and each result held for the organiser in one line, until
Ctrl-C (or SIGTERM, SIGHUP) stops it cleanly. The other `flickboard tournament` commands work on the same file
meanwhile: the hall locks the journal only while it appends, and follows what they append.

host/cli/tournament/parser.py makes it the `run` action with `configure_run(parser)` and `cmd_run(args, out)`.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import TextIO

from flickboard import lifecycle
from flickboard.config import ConfigError, add_broker_arguments, board_problem, broker_of
from flickboard.errors import UserError


def configure_run(c: argparse.ArgumentParser) -> None:
    """The options of `run` (the FILE argument is the caller's)."""
    add_broker_arguments(c)
    c.add_argument("--boards", metavar="a,b", help="only these boards (default: every board assigned a match)")
    c.add_argument(
        "--answer-timeout", type=float, default=10.0, metavar="S", help="seconds to wait for a bridge's answer"
    )


def cmd_run(args: argparse.Namespace, out: TextIO) -> int:
    from flickboard.tournament.hall import Hall, HallError  # the MQTT client: loaded by `run` alone

    if not os.path.exists(args.file):
        raise UserError(
            f"there is no tournament {args.file} (start one: flickboard tournament new {args.file} --name NAME)"
        )
    try:
        url, ca_file = broker_of(args)
    except ConfigError as e:
        raise UserError(str(e)) from None
    boards = [b.strip() for b in args.boards.split(",") if b.strip()] if args.boards else None
    for b in boards or ():
        problem = board_problem(b)
        if problem:
            raise UserError(f"--boards: {problem}")

    def say(line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {line}", file=out, flush=True)

    stop = threading.Event()
    hall = Hall(args.file, url, ca_file=ca_file, boards=boards, answer_timeout=args.answer_timeout, say=say)
    with lifecycle.on_stop_signals(stop.set):
        try:
            hall.start()
        except HallError as e:
            raise UserError(str(e)) from None
        try:
            which = ", ".join(boards) if boards else "every board"
            print(f"flickboard tournament run: {args.file} ({hall.event.name}) on {url}, {which}; Ctrl-C stops",
                  file=out, flush=True)  # fmt: skip
            if not hall.wait_ready(10):
                say(f"the broker {url} has not answered yet; still trying")
            while not stop.wait(0.25):
                pass
        finally:
            hall.stop()
    c = hall.counts
    print(
        f"flickboard tournament run: stopped; {c['opened']} opened, {c['results']} results, {c['refused']} refused, "
        f"{len(hall.held)} held",
        file=out,
        flush=True,
    )
    for h in hall.held:
        print(f"  held: {h['match']} on {h['board']}: {h['why']}", file=out, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="flickboard tournament run", description=__doc__.splitlines()[0] if __doc__ else None
    )
    p.add_argument("file", metavar="FILE", help="the tournament's journal")
    configure_run(p)
    args = p.parse_args(argv)
    try:
        return cmd_run(args, sys.stdout)
    except UserError as e:
        print(f"flickboard: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
