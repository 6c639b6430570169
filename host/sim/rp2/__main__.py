"""The emulated Pico by hand:

    python -m flickboard.sim.rp2 check                                   the images, Node and rp2040js are there
    python -m flickboard.sim.rp2 flash --out pico.img [--board pico_w]   a blank Pico, `make flash`, its flash saved
    python -m flickboard.sim.rp2 run [--flash pico.img] [--profile pico_w] [--pace realtime|fast] [--link PATH]
                                                               a board on a pseudo-terminal until Ctrl-C

`run` prints the port (a symlink the rig owns); open it with mpremote, a serial terminal or
`flickboard bridge --serial PORT`. Without --flash the board is blank: MicroPython alone, its REPL on the port.
"""

from __future__ import annotations

import argparse
import sys
import threading

from flickboard import lifecycle
from flickboard.sim.rp2.images import RigError, find_images, node
from flickboard.sim.rp2.rig import Pico


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m flickboard.sim.rp2", description="the emulated Pico (host/sim/rp2)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check", help="check that the firmware images, Node and rp2040js are there")
    fl = sub.add_parser("flash", help="flash a blank Pico with make flash and save its flash image")
    fl.add_argument("--board", default="pico_w", help="the BOARD of make flash (default pico_w)")
    fl.add_argument("--out", required=True, help="the flash image to write")
    run = sub.add_parser("run", help="run a board on a pseudo-terminal until Ctrl-C")
    run.add_argument("--flash", help="a flash image (from 'flash'); default: a blank Pico")
    run.add_argument("--profile", default="pico_w", help="the board profile its parts follow (default pico_w)")
    run.add_argument("--pace", choices=("realtime", "fast"), default="realtime")
    run.add_argument("--link", help="where to put the port's symlink (default: a fresh temporary folder)")
    args = ap.parse_args(argv)
    stop = threading.Event()

    lifecycle.on_stop_signals(stop.set)
    lifecycle.follow_parent()
    try:
        if args.cmd == "check":
            images = find_images()
            print(f"ok: {images.uf2.name} and {images.bootrom.name} in {images.uf2.parent}; node at {node()}")
            return 0
        if args.cmd == "flash":
            with Pico(profile=args.board, pace="realtime") as board:
                print(f"flashing a blank Pico on {board.port} with make flash BOARD={args.board} ...", flush=True)
                print(board.make_flash(args.board).rstrip(), flush=True)
                board.reset(hold=True)
                board.save_flash(args.out)
            print(f"wrote {args.out}: start it with python -m flickboard.sim.rp2 run --flash {args.out}")
            return 0
        with Pico(flash=args.flash, profile=args.profile, pace=args.pace, link=args.link) as board:
            board.wait_usb()
            print(f"emulated Pico on {board.port} ({args.pace}; Ctrl-C stops it)", flush=True)
            while not stop.wait(0.5):
                board.state()  # raises if the emulator stopped
                if board.halted:
                    raise RigError(board.halted)
        return 0
    except RigError as e:
        print(f"flickboard rp2: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
