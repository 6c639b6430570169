"""Every MQTT topic Flickboard publishes or reads, in one place (docs/mqtt.md and docs/protocol.md say what each
carries). Code elsewhere builds a topic with `board_topic` and reads one with `parse_board_topic`; it never spells
`flickboard/...` itself (tests/test_topics.py holds that).

    flickboard/<board>/status      the board's retained online/offline (its last will)       board -> all
    flickboard/<board>/raw         the board's protocol messages, QoS 1                       board -> bridge
    flickboard/<board>/cmd         host commands (ack, ping, ...), QoS 1                      bridge -> board
    flickboard/<board>/input       a manual entry for the board's game                        scorer -> bridge
    flickboard/<board>/result      the answer to an entry                                     bridge -> scorer
    flickboard/<board>/scoreboard  the retained scoreboard document                           bridge -> displays
    flickboard/<board>/events      the scoring moments, one per message                       bridge -> displays
    flickboard/bridge/status       the bridge's retained online/offline (its last will)       bridge -> all
    flickboard/bridge/health       the bridge's retained health document                      bridge -> operators
"""

from __future__ import annotations

from collections.abc import Iterable

from .protocol import RESERVED_BOARDS, is_board_id

ROOT = "flickboard"
BRIDGE_STATUS = f"{ROOT}/bridge/status"
BRIDGE_HEALTH = f"{ROOT}/bridge/health"

STATUS = "status"
RAW = "raw"
CMD = "cmd"
INPUT = "input"
RESULT = "result"
SCOREBOARD = "scoreboard"
EVENTS = "events"
BOARD_KINDS = (STATUS, RAW, CMD, INPUT, RESULT, SCOREBOARD, EVENTS)
DISPLAY_KINDS = (SCOREBOARD, EVENTS, RESULT)  # what a screen follows
EVERY_BOARD = "+"


def board_topic(board: str, kind: str) -> str:
    """`flickboard/<board>/<kind>`; `board` may be `EVERY_BOARD` (a subscription)."""
    if kind not in BOARD_KINDS:
        raise ValueError(f"no board topic {kind!r}")
    return f"{ROOT}/{board}/{kind}"


def board_topics(boards: Iterable[str] | None, kinds: Iterable[str]) -> list[str]:
    """The topics of `kinds` for each board, or for every board (`+`) when `boards` is None."""
    names = list(boards) if boards is not None else [EVERY_BOARD]
    return [board_topic(b, k) for b in names for k in kinds]


def split_board_topic(topic: str) -> tuple[str, str] | None:
    """(board, kind) of `flickboard/<board>/<kind>`, whatever the board id and the kind say (the caller judges
    them, and says why it refuses); None for the bridge's own topics and anything else."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != ROOT or parts[1] in RESERVED_BOARDS:
        return None
    return parts[1], parts[2]


def parse_board_topic(topic: str) -> tuple[str, str] | None:
    """(board, kind) of a board's topic with a valid board id and a known kind; None for anything else."""
    split = split_board_topic(topic)
    if split is None or split[1] not in BOARD_KINDS or not is_board_id(split[0]):
        return None
    return split
