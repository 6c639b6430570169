"""`make pcb` runs these with KiCad installed (FLICKBOARD_KICAD=1); `make test` does not install KiCad."""

import os

collect_ignore = [] if os.environ.get("FLICKBOARD_KICAD") else ["test_kicad_pcb.py"]
