"""The `flickboard` command: its parser and the scorekeeping commands (host/cli/main.py), the bridge, enter and
scoreboard commands (host/cli/bridge.py), and the accuracy report (host/cli/accuracy.py)."""
