"""`flickboard tournament …`: the organiser's commands over a tournament journal (host/tournament; docs/tournament.md).

Every command that changes the event opens the journal (its lock: one writer at a time), checks the act against the
event, appends it (on disk before the command says it is done) and folds it, through `Director`. A refused act
writes nothing: the command prints one line saying why (an entrant, a match or a stage it does not know comes with
"did you mean"), through host/errors.py, and exits with status 2. The commands that only read (`standings`,
`bracket`, `show`, `export`) read the journal without its lock, so they work while another process (the hall) keeps
it open.

Names: an entrant is typed by its name, or by one of its players' names when that names one entrant only (a doubles
team "Ana & Ben" is "Ana" or "Ben"); a match by its id ("swiss/R2-3", "final/W1-2"), or by its label ("R2-3") when
one open stage has it. Pairs of numbers (--games, --points, --twenties) are a-b in the order the match lists its
sides ("Ana vs Ben": Ana's first).

One job per module, each importing only modules listed below it:
- `parser.py`: the parser of every action and its arguments, `configure_parser` and `run` (host/cli/main.py);
- `commands.py`: the commands, one `cmd_…` per action (`new`, `add`, `start`, `pair`, `assign`, `result`, ...);
- `hall.py`: the `run` action, the hall (host/tournament/hall.py) as a command;
- `opening.py`: opening the journal, with its lock to act or without it to read, and the refusals as one line;
- `registrations.py`: the entrants registered one by one or from a CSV file, as acts;
- `values.py`: the other values typed: pairs of numbers a-b, a tie-break chain, boards, a game journal as evidence;
- `lookup.py`: an entrant, a match or a stage found from the word typed, and the match on a board;
- `standings.py`: the standings tables with their tie-breaks, and the final standings;
- `bracket.py`: the bracket, drawn as a tree and listed by round;
- `show.py`: the event at a glance (`show`), a round's table, and the next step;
- `text.py`: the text the drawings share: a side of a match, a match's outcome, a stage's line, the grid of a table.

This file imports none of them (host/cli/main.py imports `flickboard.cli.tournament.parser`), so
`python -m flickboard.cli.tournament.hall` runs the hall without loading the rest.
"""
