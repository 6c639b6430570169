"""The `flickboard` command: its parser and the one place errors are caught (host/cli/main.py), the rule sets
(`rules`: host/cli/rules.py), files (transcripts and journals read and folded, `replay`, `export`: host/cli/files.py),
`play` at the terminal (host/cli/play.py), the `bridge` command (host/cli/bridge.py), `enter` and `scoreboard`
(host/cli/remote.py), the accuracy report (host/cli/accuracy.py), `flash` (host/cli/flash.py) and `serve`
(host/cli/serve.py)."""
