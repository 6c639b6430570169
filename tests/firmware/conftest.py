"""Two checks that need what `make test` does not build are collected only by their own targets: KiCad's checks of
the strip segment's board under `make pcb`, which installs KiCad and sets FLICKBOARD_KICAD=1 (hardware/README.md),
and the frozen-modules firmware under `make soak-frozen`, which needs the image `make firmware-frozen` builds and
sets FLICKBOARD_FROZEN=1 (docs/firmware.md)."""

from __future__ import annotations

import os

collect_ignore = [
    *([] if os.environ.get("FLICKBOARD_KICAD") else ["test_kicad_pcb.py"]),
    *([] if os.environ.get("FLICKBOARD_FROZEN") else ["test_rp2_frozen.py"]),
]
