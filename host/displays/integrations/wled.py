"""WLED: on a twenty, a few seconds of an effect in the scoring side's colour, then the lamp's own look again.
Québec Pichenottes and Flicochet have no twenties: the lamp flashes at the end of a manche or a round in the
colour of the side that won it (white for a tie), and at the end of the game in the winner's colour.

Everything goes to the lamp's JSON API topic, `<topic>/api`, as JSON API state objects
(https://kno.wled.ge/interfaces/mqtt/ and https://kno.wled.ge/interfaces/json-api/). The way back is a timed
revert done here, not by the lamp:

1. before the first flash: `{"psave": 250, "ib": true, "sb": true}` saves the lamp's current look, brightness
   and segment bounds included, in preset slot 250 (a scratch slot). With `--wled-preset N` nothing is saved:
   N is the look to return to.
2. the flash: `{"on": true, "bri": 255, "tt": 0, "seg": [{"id": 0, "fx": 42, "sx": 200, "ix": 255, "pal": 2,
   "col": [[r, g, b], [0, 0, 0], [0, 0, 0]]}]}`: effect 42 (Fireworks) on the first segment, in the side's colour
   (palette 2 is "Primary Color"), at once (`tt` 0: no crossfade for this call only).
3. `seconds` after the last flash: `{"ps": 250}` (or `{"ps": N}`) brings the look back.

A twenty during a flash flashes again and restarts the timer, without saving again (that would save the
flash). Stopping this process during a flash reverts at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flickboard.displays.integrations.common import Boards, Integration, Publish

DEFAULT_SECONDS = 4.0
DEFAULT_FX = 42  # "Fireworks" in WLED's effect list (effect ids are the same on every build since 0.14)
SCRATCH_SLOT = 250  # the highest preset id the JSON API takes


class Wled(Integration):
    name = "wled"

    def __init__(
        self,
        publish: Publish,
        boards: Boards,
        topic: str,
        *,
        seconds: float = DEFAULT_SECONDS,
        preset: int | None = None,
        fx: int = DEFAULT_FX,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(publish, boards)
        self.topic = topic
        self.seconds = seconds
        self.preset = preset
        self.fx = fx
        self.clock = clock
        self.until: float | None = None  # a flash is on until then
        self.flashes = 0

    def describe(self) -> str:
        back = f"preset {self.preset}" if self.preset is not None else f"the look saved in preset {SCRATCH_SLOT}"
        return f"WLED ({self.topic}/api; back to {back} after {self.seconds:g} s)"

    @property
    def api_topic(self) -> str:
        return f"{self.topic}/api"

    def flash_state(self, rgb: tuple[int, int, int]) -> dict[str, Any]:
        return {
            "on": True,
            "bri": 255,
            "tt": 0,
            "seg": [{"id": 0, "fx": self.fx, "sx": 200, "ix": 255, "pal": 2, "col": [list(rgb), [0, 0, 0], [0, 0, 0]]}],
        }

    def on_moment(self, board: str, moment: dict[str, Any]) -> None:
        t = moment["type"]
        if t == "twenty" or (t == "shootout-shot" and moment.get("in") is True):
            self.flash(self.boards.side_color(board, moment.get("side")))
        elif t in ("manche-over", "round-over"):  # Québec Pichenottes, Flicochet: the side that won it
            self.flash(self.boards.side_color(board, self.boards.round_winner(board, moment.get("points"))))
        elif t == "game-over" and "totals" in moment:  # their game's end (a Pichenotte game's end is not a cheer)
            self.flash(self.boards.side_color(board, moment.get("winner")))

    def flash(self, rgb: tuple[int, int, int]) -> None:
        if self.until is None and self.preset is None:
            self.send(self.api_topic, {"psave": SCRATCH_SLOT, "ib": True, "sb": True})
        self.send(self.api_topic, self.flash_state(rgb))
        self.until = self.clock() + self.seconds
        self.flashes += 1

    def revert(self) -> None:
        self.send(self.api_topic, {"ps": self.preset if self.preset is not None else SCRATCH_SLOT})
        self.until = None

    def tick(self, now: float) -> None:
        if self.until is not None and now >= self.until:
            self.revert()

    def close(self) -> None:
        if self.until is not None:
            self.revert()
