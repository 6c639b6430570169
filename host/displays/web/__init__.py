"""`flickboard web`: the TV scoreboard, the phone entry page and the operator's console, served over HTTP from what
the bridges publish on MQTT (docs/displays.md).

One process, two sides. The broker side (`hub.py`) follows the broker like any display and sends manual entries; the
HTTP side (`site.py`, Starlette served by uvicorn in a thread of its own: `server.py`) serves the pages in `ui/` and
pushes live data to them with Server-Sent Events (`streams.py`), so a browser needs one HTTP port and nothing else.

| module | its one job |
|---|---|
| `config.py` | `WebConfig` and the one error, `WebError` |
| `key.py` | the scoring key: made, loaded from the environment or a file, compared |
| `limits.py` | sizes, timeouts and the token buckets that rate-limit entries and wrong keys |
| `refusals.py` | every refusal counted by kind and said once per kind on the terminal |
| `streams.py` | one page's event stream: its bounded queue and its response |
| `hub.py` | the broker side: scoreboards, statuses and health kept and fanned out; entries sent, answers awaited |
| `responses.py` | every response with the server's headers, the error body, the pages' files |
| `site.py` | the guard around every request, who may ask, and `Pages`: how a set of pages plugs in |
| `board_pages.py` | the index, each board's TV and entry page, their JSON and the entry POST |
| `plain.py` | a refused entry said for the scorer: one sentence, and the near lines that fix it |
| `operator_pages.py` | the console and the scoring key's link and form |
| `server.py` | `WebApp` and `start_web`: the hub, uvicorn, the listening socket, start and stop |
| `command.py` | the `flickboard web` command (`python -m flickboard.displays.web` too) |

The tournament's pages plug in from `flickboard.displays.tournament_pages` through `Pages` and the public helpers of
`site.py` and `responses.py`; nothing here imports them but the command.
"""
