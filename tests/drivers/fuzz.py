"""Shared fuzzing check for the three protocols' receive paths (not a test module).

Each hypothesis example builds noisy streams in bulk from one seed, so the CI run
pushes ``FRAMES_PER_EXAMPLE * EXAMPLES`` good frames (102,000) through each protocol's
decoder, plus the noise and damaged frames between them.
"""

from __future__ import annotations

import random

from drivers.messages import Codec
from drivers.sim.line_noise import decode_stream, noisy_stream

FRAMES_PER_EXAMPLE = 2040  # half to the host, half to the device
EXAMPLES = 50


def check_protocol(codec: Codec, seed: int, noise: float, chunking: int) -> int:
    """Decode noisy streams both ways; return the number of good frames checked."""
    rng = random.Random(seed)
    checked = 0
    for at_host in (True, False):
        stream = noisy_stream(
            codec, rng, frames=FRAMES_PER_EXAMPLE // 2, at_host=at_host, noise=noise
        )
        chunks = [rng.randint(1, 300) for _ in range(chunking)]
        decoded = decode_stream(codec, stream.data, at_host=at_host, chunks=chunks)
        # Every good frame inside the noise comes out, in order, and nothing else does.
        assert decoded.messages == stream.good
        # Intact frames the protocol cannot accept are counted, not delivered.
        assert decoded.unknown == stream.unknown
        assert decoded.bad_payload == stream.bad_payload
        # Each damaged frame costs at least one counted drop.
        assert decoded.decoder.counters.dropped >= stream.damaged
        assert decoded.decoder.pending == 0
        checked += len(stream.good)
    return checked
