"""Fuzz the three serial protocols' receive paths with a million frames each.

Good frames are mixed with noise, torn and damaged frames, frames of unknown types and
malformed payloads (``drivers.sim.line_noise``), in both directions, fed to the
decoder in random chunks. Every good frame must come out, in order, and every bad
frame must be counted; the script prints the counts and the decode rate.

    .venv/bin/python bench/fuzz_protocols.py [--frames 1000000] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from drivers.display import DISPLAY
from drivers.keypad import KEYPAD
from drivers.messages import Codec
from drivers.sim.line_noise import decode_stream, noisy_stream
from drivers.tray import TRAY

BATCH = 20_000


def fuzz(codec: Codec, frames: int, seed: int) -> bool:
    rng = random.Random(seed)
    good = unknown = bad_payload = damaged = dropped = garbage = size = 0
    build_time = decode_time = 0.0
    ok = True
    done = 0
    while done < frames:
        count = min(BATCH, frames - done)
        at_host = (done // BATCH) % 2 == 0
        started = time.perf_counter()
        stream = noisy_stream(codec, rng, frames=count, at_host=at_host, noise=0.5)
        built = time.perf_counter()
        chunks = [rng.randint(1, 512) for _ in range(len(stream.data) // 256)]
        decoded = decode_stream(codec, stream.data, at_host=at_host, chunks=chunks)
        decode_time += time.perf_counter() - built
        build_time += built - started
        counters = decoded.decoder.counters
        if (
            decoded.messages != stream.good
            or decoded.unknown != stream.unknown
            or decoded.bad_payload != stream.bad_payload
            or counters.dropped < stream.damaged
        ):
            ok = False
            print(f"  MISMATCH in the batch at frame {done} (seed {seed})", file=sys.stderr)
        good += len(decoded.messages)
        unknown += decoded.unknown
        bad_payload += decoded.bad_payload
        damaged += stream.damaged
        dropped += counters.dropped
        garbage += counters.garbage_bytes
        size += len(stream.data)
        done += count
    print(
        f"{codec.name:8} good frames {good:>9,}  bytes {size:>11,}  damaged {damaged:>8,}  "
        f"dropped {dropped:>8,}  unknown {unknown:>7,}  bad payload {bad_payload:>7,}  "
        f"garbage bytes {garbage:>10,}"
    )
    print(
        f"{'':8} decode {decode_time:6.1f} s = {good / decode_time:>9,.0f} good frames/s "
        f"({size / decode_time / 1e6:.2f} MB/s)   generate {build_time:6.1f} s   "
        f"{'all good frames decoded, all bad ones counted' if ok else 'FAILED'}"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1_000_000, help="good frames per protocol")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = [fuzz(codec, args.frames, args.seed) for codec in (KEYPAD, TRAY, DISPLAY)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
