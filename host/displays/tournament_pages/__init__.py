"""The tournament's web pages, plugged into `flickboard web` with `--tournament FILE` (docs/tournament.md):

| module | its one job |
|---|---|
| `pages.py` | `TournamentPages`: the event file, the hall run for it, the routes |
| `views.py` | what the hall screen, an entrant's phone and the organiser's page show (pure JSON of the event) |
| `acts.py` | the organiser's acts, each through the tournament's `Director`, answered in one line |
| `cards.py` | the printable score cards with their QR codes |
| `ui/` | the pages and their scripts (they share the web server's CSS and common script) |

They plug in through `flickboard.displays.web.site.Pages` and the web server's public helpers, and reach the boards
through `flickboard.tournament.hall.Hall`.
"""
