"""The `flickboard` command: its parser and the one place errors are caught (host/cli/main.py), files (transcripts
and journals read and folded, `rules`, `replay`, `export`: host/cli/files.py), `play` at the terminal
(host/cli/play.py), the `bridge` command (host/cli/bridge.py), `enter` and `scoreboard` (host/cli/remote.py), and the
accuracy report (host/cli/accuracy.py)."""
