"""Opening a tournament's journal for a command: with its lock, to act on the event (`open_director`), or without it,
only to read the event (`read_event`); the director's refusals become the one error a person sees."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from flickboard.errors import UserError
from flickboard.tournament import ActError, Director, Event, PairingError, read

LOCK_WAIT = 3.0  # seconds a command waits for another process's append before it says the file is in use


@contextmanager
def open_director(path: str) -> Iterator[Director]:
    """The tournament in `path` opened to act on it: its lock taken (waiting LOCK_WAIT seconds for another process's
    append), a torn last entry warned about, and the director's refusals made one line."""
    if not os.path.exists(path):
        raise UserError(f"there is no tournament {path} (start one: flickboard tournament new {path} --name NAME)")
    try:  # the hall appends a board's result: it holds the lock for a moment only
        d = Director.open(path, wait=LOCK_WAIT)
    except ActError as e:
        raise UserError(str(e)) from None
    if d.torn is not None:  # a crash (kill -9) in the middle of an append: that act was never acknowledged
        print(f"warning: {d.torn.message()}", file=sys.stderr)
    try:
        with refusals():
            yield d
    finally:
        d.close()


@contextmanager
def refusals() -> Iterator[None]:
    """The director's refusals (ActError, PairingError) as the one error a person sees."""
    try:
        yield
    except (ActError, PairingError) as e:
        raise UserError(str(e)) from None


def read_event(path: str) -> Event:
    """The tournament in `path` folded, read without its lock (for the commands that only read)."""
    if not os.path.exists(path):
        raise UserError(f"there is no tournament {path} (start one: flickboard tournament new {path} --name NAME)")
    return read(path)
