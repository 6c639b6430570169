"""The bridge: boards' sensor events and people's entries -> one journal per board -> the rules -> scoreboards.

`Bridge` (messages.py) is what a link hands its messages to; messages.py lists the modules it is built from, one job
each. Each board has its own journal folder, `<journals>/<board>/`, with one journal per match; the newest is
resumed at start, and what each board delivered is rebuilt from it, so a bridge killed and restarted counts nothing
twice and acks where it left off.
"""

from flickboard.board.bridge.board_game import BoardGame, BridgeError, GameSetup
from flickboard.board.bridge.messages import Bridge
from flickboard.board.bridge.output import Publish

__all__ = ["BoardGame", "Bridge", "BridgeError", "GameSetup", "Publish"]
