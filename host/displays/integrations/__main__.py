"""`python -m flickboard.displays.integrations`: the integrations command on its own, with the same options and the same
one-line errors as `flickboard integrations`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from flickboard.displays.integrations.runner import configure_parser, run_integrations
from flickboard.errors import UserError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="flickboard integrations",
        description="Feed Home Assistant, an AWTRIX 3 clock or a WLED lamp from the bridge's scoreboards (MQTT).",
    )
    configure_parser(parser)
    args = parser.parse_args(argv)
    try:
        return run_integrations(args, sys.stdout)
    except UserError as e:
        print(f"flickboard: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
