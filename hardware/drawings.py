"""Every drawing of hardware/ from the geometry and the profiles, in one go.

    python hardware/drawings.py            # rewrite board.svg, hall_coverage.svg, sections.svg, schematic*.svg
    python hardware/drawings.py --check    # exit 1 when any of them is out of date (tests/test_hardware*.py check too)

It also prints the board requirements that geometry.json breaks (mechanics.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import board_svg
import hall_svg
import mechanics
import schematic
import sections_svg


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    bad = 0
    for mod in (board_svg, hall_svg, sections_svg, schematic):
        bad += 1 if mod.main(args) else 0
    for p in mechanics.problems(mechanics.load()):
        print("requirement not met:", p)
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
