"""Game engines. Each game is a package with a pure engine, its rule-set options and its notation."""
