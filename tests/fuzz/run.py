"""`make fuzz`: the fuzz targets of tests/fuzz/targets.py, coverage-guided with atheris (libFuzzer), each in its own
process, starting from a seed corpus of real inputs (the protocol test vectors, the sample transcripts, the
notation, valid requests). Prints how many inputs each target ran and whether any misbehaved.

    .venv/bin/python tests/fuzz/run.py [--runs-decoder 100000] [--runs-session 10000] [--runs 20000] [--only NAME]

Without atheris (no wheel for this Python or machine), the same targets run on random inputs and mutations of the
same corpus, without coverage guidance, and the report says so. Exit status 1 if any target failed; the input
that made it fail is kept in build/fuzz/.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE.parent), str(ROOT)]
from flickboard import lifecycle  # noqa: E402 (after the path it comes from)

OUT = ROOT / "build" / "fuzz"


def corpus(name: str) -> list[bytes]:
    """Real inputs to start from."""
    from fuzz import targets

    if name == "decoder":
        vec = json.loads((ROOT / "tests" / "vectors" / "board_messages.json").read_text())
        return [v["line"].encode() for v in vec["vectors"]] + [v["json"].encode() for v in vec["vectors"]]
    if name == "transcript":
        return [p.read_bytes() for p in sorted((ROOT / "host" / "samples").glob("*.pich"))]
    if name == "manual_entry":
        return [ln.encode() for ln in targets.LINES if ln]
    if name == "mqtt_input":
        reqs: list[object] = [{"line": ln} for ln in targets.LINES[:12]]
        reqs += [{"line": "undo", "id": 7}, {"new": {"rules": "beginner", "players": ["A", "B"]}}, {"lines": "x"}]
        return [json.dumps(r).encode() for r in reqs]
    rnd = random.Random(name)
    return [bytes(rnd.getrandbits(8) for _ in range(rnd.randint(8, 200))) for _ in range(32)]


def mutate(rnd: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rnd.randint(1, 6)):
        op = rnd.randrange(5)
        pos = rnd.randint(0, len(b))
        if op == 0 and b:
            b[min(pos, len(b) - 1)] = rnd.getrandbits(8)
        elif op == 1:
            b[pos:pos] = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 8)))
        elif op == 2 and b:
            del b[pos : pos + rnd.randint(1, 8)]
        elif op == 3 and b:
            b[pos:pos] = b[max(0, pos - 16) : pos]  # repeat a slice
        else:
            b[pos:pos] = rnd.choice([b"{", b"}", b'"', b"|", b"\n", b"\x00", b"\xff", b" ", b"-1", b"1e999"])
    return bytes(b)


def child_atheris(name: str, runs: int) -> int:
    import atheris  # type: ignore[import-not-found]

    with atheris.instrument_imports(include=["host", "rules"]):
        from fuzz import targets

    target = targets.TARGETS[name]
    seeds = Path(tempfile.mkdtemp(prefix=f"fuzz-{name}-"))
    for i, data in enumerate(corpus(name)):
        (seeds / f"seed-{i}").write_bytes(data)
    OUT.mkdir(parents=True, exist_ok=True)
    args = [sys.argv[0], f"-runs={runs}", "-max_len=4096", f"-artifact_prefix={OUT}/{name}-", str(seeds)]
    atheris.Setup(args, target)
    atheris.Fuzz()
    return 0


def child_random(name: str, runs: int) -> int:
    from fuzz import targets

    target = targets.TARGETS[name]
    rnd = random.Random(f"{name}-{runs}")
    pool = corpus(name)
    t0 = time.monotonic()
    for i in range(runs):
        r = rnd.random()
        if r < 0.6:
            data = mutate(rnd, rnd.choice(pool))
        elif r < 0.8:
            data = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 300)))
        else:
            data = rnd.choice(pool)
        try:
            target(data)
        except Exception:
            OUT.mkdir(parents=True, exist_ok=True)
            path = OUT / f"{name}-crash-{i}"
            path.write_bytes(data)
            traceback.print_exc()
            print(f"==> {name}: input {i} failed; kept in {path}", file=sys.stderr)
            return 1
        if len(pool) < 2000 and r < 0.05:
            pool.append(data)
    print(f"Done {runs} runs in {time.monotonic() - t0:.0f} second(s)", file=sys.stderr)
    return 0


def have_atheris() -> bool:
    try:
        import atheris  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="run the fuzz targets")
    ap.add_argument("--runs-decoder", type=int, default=100_000)
    ap.add_argument("--runs-session", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=20_000, help="runs for the other targets")
    ap.add_argument("--only", default="")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-runs", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--no-atheris", action="store_true", help="random inputs only, even if atheris is installed")
    args = ap.parse_args(argv)
    if args.child:
        if args.no_atheris or not have_atheris():
            return child_random(args.child, args.child_runs)
        return child_atheris(args.child, args.child_runs)

    with lifecycle.interrupting():  # SIGINT, SIGTERM, SIGHUP: the target running now stops with us
        lifecycle.follow_parent()
        try:
            return _run(args)
        except KeyboardInterrupt:
            print("fuzz: stopped", file=sys.stderr)
            return 130


def _run(args: argparse.Namespace) -> int:
    from fuzz import targets

    names = [n for n in args.only.split(",") if n] or list(targets.TARGETS)
    guided = have_atheris() and not args.no_atheris
    if guided:
        print("==> fuzzing with atheris (coverage-guided, libFuzzer)")
    else:
        print(
            "==> atheris is not available here: running the same targets on random inputs and mutations of the seed "
            "corpus, WITHOUT coverage guidance"
        )
    results: list[tuple[str, int, float, bool]] = []
    for name in names:
        runs = {"decoder": args.runs_decoder, "session": args.runs_session}.get(name, args.runs)
        cmd = [sys.executable, __file__, "--child", name, "--child-runs", str(runs)]
        if args.no_atheris:
            cmd.append("--no-atheris")
        t0 = time.monotonic()
        p = lifecycle.run(cmd, env={**os.environ, "PYTHONHASHSEED": "0"})
        secs = time.monotonic() - t0
        done = re.findall(r"Done (\d+) runs", p.stderr)
        ran = int(done[-1]) if done else 0
        ok = p.returncode == 0 and ran >= runs
        results.append((name, ran, secs, ok))
        print(f"{name:13} {ran:8,} inputs in {secs:6.1f} s  {'ok' if ok else 'FAILED'}", flush=True)
        if not ok:
            print("\n".join(p.stderr.splitlines()[-40:]))
    failed = [r for r in results if not r[3]]
    total = sum(r[1] for r in results)
    how = "coverage-guided (atheris)" if guided else "random, without coverage guidance (atheris not available)"
    print(f"==> {total:,} inputs over {len(results)} targets, {how}: {'all ok' if not failed else 'FAILURES above'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
