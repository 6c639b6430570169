"""Boards without a board: the simulated board (the real firmware under the MicroPython unix port), the emulated
Pico (host/sim/rp2), the scenario and random-game generators, a private Mosquitto, the scripted scorer, and
`flickboard demo`, which plays the whole chain."""
