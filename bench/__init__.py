"""`make bench`: Flickboard's performance figures, each measured beside its floor (docs/performance.md).

The benchmarks use the tests' helpers (the private broker, the end-to-end rig, the MicroPython runner) and the
firmware's own modules as they are, so both folders are put on the import path here.
"""

import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
for _p in (_ROOT / "tests" / "support", _ROOT / "firmware"):
    if str(_p) not in sys.path:
        sys.path.append(str(_p))
