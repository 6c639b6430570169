# The simulated board, for bench tests: `micropython firmware/simboard.py SCENARIO.json` (see fb/sim.py).
import sys

from fb.sim import main

sys.exit(main(sys.argv))
