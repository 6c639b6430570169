"""The scorekeeping core: the journal (the truth), the session that folds the rules over it, the sensor evidence
that becomes rule inputs, the manual-entry request format, and the documents the displays read (the scoreboard,
the scoring moments) with their text views. Pure but for the journal's files: it imports only `rules` and
`flickboard.jsontext`."""
