"""The real Home Assistant check runs with `make ha` only (it needs the chroot that make ha builds, and minutes): the
ordinary test run does not collect it. The discovery logic itself is tested in tests/displays/test_integrations.py."""

from __future__ import annotations

import os

collect_ignore = [] if os.environ.get("FLICKBOARD_HA_ROOT") else ["test_real_homeassistant.py"]
