"""Randomness keyed by replication, so results never depend on batching.

Two sources, both functions of (seed, replication index) only:

* replica_rng(seed, index): a numpy Generator (PCG64) per replication,
  for per-replication policies (Replica.rng).
* KeyedDraws: counter-based draws for vectorised policies. Draw j of round
  t of replication r is a pure function of (seed, r, t, j): a SplitMix64
  stream, started at a point keyed by (seed, r), read at position
  t * 2**20 + j. A whole batch's draws of a round cost a dozen numpy
  operations, and replication r gets the same numbers alone, in any batch,
  at any position.

These streams are not the Go SDK's (math/rand/v2 PCG keyed by the same
pair): a Python policy and its Go twin make the same choices only when
they use no randomness.
"""

import numpy as np

_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_MASK = (1 << 64) - 1
ROUND_STRIDE = 1 << 20  # draws per round a replication may take


def replica_rng(seed, index):
    """The numpy Generator of replication index: PCG64 seeded by
    SeedSequence([seed, index])."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), int(index)])))


def _mix(z):
    """SplitMix64's finaliser of one Python int."""
    z &= _MASK
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def stream_key(seed, index):
    """The SplitMix64 state at which replication index's stream starts."""
    return _mix(_mix(int(seed) ^ 0x5245475245544245) + _GAMMA * (int(index) + 1))


def draw_bits(seed, index, t, j):
    """Draw j of round t of replication index as a uint64 (reference code,
    one value; KeyedDraws computes the same numbers vectorised)."""
    return _mix(stream_key(seed, index) + _GAMMA * (t * ROUND_STRIDE + j + 1))


class KeyedDraws:
    """Per-round random numbers for a batch, keyed by (seed, replication).

    KeyedDraws(seed, indices, width) serves width draws per replication
    per round (width <= 2**20): uniform(t) and normal(t) return float64
    arrays of shape (len(indices), width), computed in preallocated
    buffers that the next call overwrites (copy what you keep).
    """

    def __init__(self, seed, indices, width):
        if not 1 <= width <= ROUND_STRIDE:
            raise ValueError("KeyedDraws: width %d: want 1..%d" % (width, ROUND_STRIDE))
        n = len(indices)
        keys = np.array([stream_key(seed, i) for i in indices], dtype=np.uint64)
        j = np.arange(1, width + 1, dtype=np.uint64) * np.uint64(_GAMMA)
        self._base = keys[:, None] + j[None, :]  # wraps mod 2^64
        self._x = np.empty((n, width), dtype=np.uint64)
        self._y = np.empty((n, width), dtype=np.uint64)
        self._f = np.empty((n, width), dtype=np.float64)
        self._g = np.empty((n, width), dtype=np.float64)
        self.shape = (n, width)

    def bits(self, t):
        """The raw uint64 draws of round t."""
        x, y = self._x, self._y
        np.add(self._base, np.uint64((t * ROUND_STRIDE * _GAMMA) & _MASK), out=x)
        np.right_shift(x, np.uint64(30), out=y)
        np.bitwise_xor(x, y, out=x)
        np.multiply(x, np.uint64(_M1), out=x)
        np.right_shift(x, np.uint64(27), out=y)
        np.bitwise_xor(x, y, out=x)
        np.multiply(x, np.uint64(_M2), out=x)
        np.right_shift(x, np.uint64(31), out=y)
        np.bitwise_xor(x, y, out=x)
        return x

    def uniform(self, t):
        """Uniform draws in [0, 1) of round t: the top 53 bits of each."""
        x = self.bits(t)
        np.right_shift(x, np.uint64(11), out=x)
        f = self._f
        np.multiply(x, 2.0 ** -53, out=f, casting="unsafe")
        return f

    def normal(self, t):
        """Standard normal draws of round t, by Box-Muller on the two
        32-bit halves of each draw (|z| <= 6.66)."""
        x = self.bits(t)
        f, g, y = self._f, self._g, self._y
        np.bitwise_and(x, np.uint64(0xFFFFFFFF), out=y)
        np.multiply(y, 2.0 ** -32, out=g, casting="unsafe")  # [0, 1)
        np.right_shift(x, np.uint64(32), out=y)
        np.add(y, np.uint64(1), out=y)
        np.multiply(y, 2.0 ** -32, out=f, casting="unsafe")  # (0, 1]
        np.log(f, out=f)
        np.multiply(f, -2.0, out=f)
        np.sqrt(f, out=f)
        np.multiply(g, 2 * np.pi, out=g)
        np.cos(g, out=g)
        np.multiply(f, g, out=f)
        return f
