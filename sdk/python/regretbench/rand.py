"""Randomness keyed by replication, so results never depend on batching.

Two sources, both functions of (seed, replication index) only:

* replica_rng(seed, index): a numpy Generator (PCG64) per replication,
  for per-replication policies (Replica.rng).
* KeyedDraws: counter-based draws for vectorised policies. Draw j of round
  t of replication r is a pure function of (seed, r, t, j): a SplitMix64
  stream, started at a point keyed by (seed, r), read at position
  t * 2**20 + j + 1. A whole batch's draws of a round cost a dozen numpy
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
_ONE = 0x3FF0000000000000  # the bits of 1.0
# numpy scalars made once: making one costs as much as an operation on a
# small array.
_U12, _U20, _U27, _U30, _U31 = (np.uint64(k) for k in (12, 20, 27, 30, 31))
_UM1, _UM2, _UONE = np.uint64(_M1), np.uint64(_M2), np.uint64(_ONE)
_UHIGH, _ULOW = np.uint64(0xFFFFFFFF << 20), np.uint64(0xFFFFFFFF)  # a half's 32 bits, placed


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

    KeyedDraws(seed, indices, width) serves one call per round of
    uniform(t) or normal(t): a float64 array of shape (len(indices),
    width), row i for replication indices[i]. Values live in preallocated
    buffers that a later call overwrites (copy what you keep). uniform and
    normal of the same round use the same 64-bit draws: a policy that
    needs both makes a second KeyedDraws with another stream number, whose
    draws are independent of the first's.

    Draw j of round t of replication r (draw_bits(seed, r, t, j), keyed
    also by stream) gives uniform j (its top 52 bits) or the normals 2j
    and 2j+1: Box-Muller on its two 32-bit halves (radius from the high
    half, angle from the low; cos, then sin), so |z| <= 6.66.

    A numpy call costs about a microsecond whatever its size, as much as
    the arithmetic of a few thousand values: so uniform(t) and normal(t)
    compute the draws of a block of rounds t, t+1, ... at once, the
    block_rounds of them that fill about BLOCK_VALUES values, and serve the
    next rounds from the block. Every value is computed elementwise by the
    same numpy functions as one round alone would be, so the numbers do not
    depend on the block (the tests check it bit for bit). A call for a
    round not after the last one served (the same round again, say)
    computes a fresh block.
    """

    BLOCK_VALUES = 1 << 15  # 64-bit draws computed per block of rounds

    def __init__(self, seed, indices, width, stream=0, block_rounds=None):
        if not 1 <= width <= ROUND_STRIDE:
            raise ValueError("KeyedDraws: width %d: want 1..%d" % (width, ROUND_STRIDE))
        n = len(indices)
        seed = (int(seed) + _GAMMA * int(stream)) & _MASK if stream else int(seed)
        keys = np.array([stream_key(seed, i) for i in indices], dtype=np.uint64)
        h = (width + 1) // 2
        if block_rounds is None:
            block_rounds = max(1, min(64, self.BLOCK_VALUES // max(1, n * h)))
        elif block_rounds < 1:
            raise ValueError("KeyedDraws: block_rounds %d: want >= 1" % block_rounds)
        self.shape, self._h, self.block_rounds = (n, width), h, block_rounds
        # Flat, contiguous buffers: numpy is fastest on long 1-D loops.
        self._base = {}
        for w in {width, h}:
            j = np.arange(1, w + 1, dtype=np.uint64) * np.uint64(_GAMMA)
            self._base[w] = (keys[:, None] + j[None, :]).ravel()  # wraps mod 2^64
        self._one = None  # bits' buffers, made at its first call
        self._uniform = self._normal = None  # the blocks, made at the first call

    def _mix(self, x, y):
        """SplitMix64's finaliser of every value of x, in place (y: scratch
        of x's size)."""
        np.right_shift(x, _U30, out=y)
        np.bitwise_xor(x, y, out=x)
        np.multiply(x, _UM1, out=x)
        np.right_shift(x, _U27, out=y)
        np.bitwise_xor(x, y, out=x)
        np.multiply(x, _UM2, out=x)
        np.right_shift(x, _U31, out=y)
        np.bitwise_xor(x, y, out=x)
        return x

    def _block_bits(self, blk, t):
        """The raw draws of rounds t .. t+rounds-1 into blk's buffers,
        round-major: blk.x[b, :] are round t+b's, flat as bits gives them."""
        stride = ROUND_STRIDE * _GAMMA
        off = np.array([((t + b) * stride) & _MASK for b in range(blk.rounds)], dtype=np.uint64)
        np.add(self._base[blk.w][None, :], off[:, None], out=blk.x2)
        return self._mix(blk.x, blk.y)

    def bits(self, t, w=None):
        """The raw uint64 draws 0..w-1 (default: width) of round t, flat,
        replication-major."""
        w = w or self.shape[1]
        if self._one is None or self._one[0] != w:
            n = self.shape[0] * w
            self._one = (w, np.empty(n, np.uint64), np.empty(n, np.uint64))
        _, x, y = self._one
        np.add(self._base[w], np.uint64((t * ROUND_STRIDE * _GAMMA) & _MASK), out=x)
        return self._mix(x, y)

    def uniform(self, t):
        """Uniform draws in [0, 1) of round t: the top 52 bits of each,
        as the mantissa of a double in [1, 2), less 1."""
        blk = self._uniform
        if blk is not None and blk.t0 <= blk.last < t < blk.t0 + blk.rounds:
            blk.last = t
            return blk.out[t - blk.t0]
        if blk is None:
            blk = self._uniform = _Block(self.block_rounds, self.shape[0], self.shape[1])
            blk.f = np.empty(blk.size, np.float64)
            blk.out = blk.f.reshape(blk.rounds, *self.shape)
        x = self._block_bits(blk, t)
        np.right_shift(x, _U12, out=x)
        np.bitwise_or(x, _UONE, out=x)
        np.subtract(x.view(np.float64), 1.0, out=blk.f)
        blk.t0 = blk.last = t
        return blk.out[0]

    def normal(self, t):
        """Standard normal draws of round t (Box-Muller, see the class)."""
        blk = self._normal
        if blk is not None and blk.t0 <= blk.last < t < blk.t0 + blk.rounds:
            blk.last = t
            return blk.out[t - blk.t0]
        n, width = self.shape
        h = self._h
        if blk is None:
            blk = self._normal = _Block(self.block_rounds, n, h)
            blk.r = np.empty(blk.size, np.float64)
            blk.c = np.empty(blk.size, np.float64)
            blk.s = np.empty(blk.size, np.float64)
            blk.z = np.empty((blk.size, 2), np.float64)
            zz = blk.z.reshape(blk.rounds, n, 2 * h)
            blk.out = zz if 2 * h == width else zz[:, :, :width]
        x = self._block_bits(blk, t)
        y, r, c, s, z = blk.y, blk.r, blk.c, blk.s, blk.z
        # radius sqrt(-2 log u1), u1 in (0, 1] from the high half: 2 - [1, 2)
        # ((x >> 32) << 20 as one shift and a mask: numpy's uint64 shifts
        # cost three times a mask)
        np.right_shift(x, _U12, out=y)
        np.bitwise_and(y, _UHIGH, out=y)
        np.bitwise_or(y, _UONE, out=y)
        np.subtract(2.0, y.view(np.float64), out=r)
        np.log(r, out=r)
        np.multiply(r, -2.0, out=r)
        np.sqrt(r, out=r)
        # angle 2 pi u2, u2 in [0, 1) from the low half ((x << 32) >> 12)
        np.bitwise_and(x, _ULOW, out=y)
        np.left_shift(y, _U20, out=y)
        np.bitwise_or(y, _UONE, out=y)
        np.subtract(y.view(np.float64), 1.0, out=c)
        np.multiply(c, 2 * np.pi, out=c)
        np.sin(c, out=s)
        np.cos(c, out=c)
        # contiguous products, then one interleaving copy each
        np.multiply(c, r, out=c)
        np.multiply(s, r, out=s)
        z[:, 0] = c
        z[:, 1] = s
        blk.t0 = blk.last = t
        return blk.out[0]


class _Block:
    """The buffers of a block of rounds of one kind of draw: rounds x n x
    w raw draws (x, and y scratch), flat; t0 its first round, last the
    last round served from it."""
    __slots__ = ("rounds", "w", "size", "x", "x2", "y", "t0", "last", "out", "f", "r", "c", "s", "z")

    def __init__(self, rounds, n, w):
        self.rounds, self.w, self.size = rounds, w, rounds * n * w
        self.x = np.empty(self.size, np.uint64)
        self.x2 = self.x.reshape(rounds, n * w)
        self.y = np.empty(self.size, np.uint64)
        self.t0 = self.last = 0
