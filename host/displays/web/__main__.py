"""`python -m flickboard.displays.web ...`: the same as `flickboard web ...`."""

import sys

from flickboard.displays.web.command import main

sys.exit(main())
