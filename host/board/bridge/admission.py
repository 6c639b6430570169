"""Which boards a bridge follows (docs/reliability.md, "Admission").

With a list of boards, only those. Without one, a board with no journal yet is taken at its first valid message (or
an operator's entry or `new` request), at most MAX_NEW_BOARDS of them per run; the rest are refused, counted and said
once per board (MAX_SAID boards said; beyond, only counted). A board's retained status alone opens nothing. A board
online on the broker but not on the list is flagged in the health document (MAX_UNLISTED of them) and not followed.
An entry does not make a board: a mistyped id gets the boards it may have meant.
"""

from __future__ import annotations

from collections.abc import Iterable

from flickboard.rules.base import near_miss

MAX_NEW_BOARDS = 64
MAX_SAID = 1024  # boards whose refusal is logged and listed; beyond, only counted
MAX_UNLISTED = 256  # boards on the broker not on the list, shown in the health document; beyond, only counted


class Admission:
    """The list of boards (None: any, up to MAX_NEW_BOARDS new ones), what was taken and refused, and the boards seen
    online that are not on the list. It decides and counts; the bridge says."""

    def __init__(self, boards: Iterable[str] | None) -> None:
        self.boards = tuple(boards) if boards is not None else None
        # New boards taken without a list, board messages refused for want of admission, journals closed when idle.
        self.counts = {"new_boards": 0, "refused": 0, "closed_idle": 0, "unlisted_not_shown": 0}
        self.unlisted: dict[str, str] = {}  # board -> when it was seen online, for boards not in `boards`
        self._said: set[str] = set()

    def not_listed(self, board: str) -> str | None:
        """Why a board's message or entry is refused when there is a list and it is not on it; None otherwise."""
        if self.boards is not None and board not in self.boards:
            return f"board {board!r} is not in this bridge's list of boards"
        return None

    @property
    def full(self) -> bool:
        """No list, and MAX_NEW_BOARDS new boards taken already: a board with no journal here is refused."""
        return self.boards is None and self.counts["new_boards"] >= MAX_NEW_BOARDS

    def refused_new(self, board: str) -> bool:
        """A new board's message refused (`full`): counted; True when it is to be said (once per board)."""
        self.counts["refused"] += 1
        if board in self._said or len(self._said) >= MAX_SAID:
            return False
        self._said.add(board)
        return True

    def online_unlisted(self, board: str, online: bool, now: str) -> str | None:
        """A board's retained status, for a board not on the list: "new" when it is newly shown as online (to be
        said), "gone" when it went offline and is no longer shown, None when nothing changed."""
        if not online:
            return "gone" if self.unlisted.pop(board, None) is not None else None
        if board in self.unlisted:
            return None
        if len(self.unlisted) >= MAX_UNLISTED:
            self.counts["unlisted_not_shown"] += 1
            return None
        self.unlisted[board] = now
        return "new"


def full_text(board: str) -> str:
    """Why a new board is refused when the bridge is `full` (`board` as it is to be shown)."""
    return (
        f"board {board} is new and this bridge has already taken {MAX_NEW_BOARDS} new boards without a list of "
        "boards: add it to 'boards' to follow it"
    )


def unknown_board(board: str, known: Iterable[str]) -> str:
    """What an entry for a board with no game, list or journal here is told: the boards it may have meant."""
    names = sorted(known)
    near = near_miss(board, names) if names else None
    hint = f"; did you mean {near!r}?" if near else (f" (boards: {', '.join(names[:8])})" if names else "")
    return f"no game on board {board!r}: start one with a new match, or check the board id{hint}"
