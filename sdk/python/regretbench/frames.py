"""The step socket's binary frames (docs/step-socket.md), as internal/wire/frame.go.

Every frame is a uint32 length followed by that many bytes; integers and
floats are little-endian.

  request:  uint64 round | uint8 flags (bit 0: want diagnostics; bit 1,
            protocol 2 under delayed feedback: arrivals follow; bit 2,
            protocol 3 in a contextual session: contexts follow) |
            uint32 n | n x int32 prev arms | n x float64 prev rewards
            (none when bit 1 is set) | when bit 1 is set: uint32 m |
            m x (uint32 index | uint64 round | int32 arm | float64 reward) |
            when bit 2 is set: uint32 c | c x float64 contexts (the
            batch's n x width values, replication-major)
  response: uint8 status, then
            status 0: uint32 n | n x int32 arms | uint32 d |
                      d x n x float64 diagnostics | in a contextual
                      session only (bit 2 set in the request): uint32 p |
                      p x float64 probs, p = 0 (none said) or n
            status 1 (the policy failed) or 2 (a bad request): UTF-8 text

These functions are the reference encoding, used by the tests and by the
server for errors; the server's hot path reads and writes the same layout
in place through numpy views of preallocated buffers.
"""

import struct

import numpy as np

OK, FAILED, INVALID = 0, 1, 2
MAX_FRAME = 256 << 20  # as the Go SDK's maxFrame
MAX_ERROR_MSG = 64 << 10  # error messages are truncated to this many bytes
REQUEST_HEADER = 13    # round, flags, n
FLAG_WANT_DIAG = 1
FLAG_ARRIVALS = 2      # protocol 2, delayed feedback: no rewards, arrivals follow
FLAG_CONTEXTS = 4      # protocol 3, a contextual session: contexts follow
ARRIVAL_BYTES = 24     # uint32 index | uint64 round | int32 arm | float64 reward

# One arrival of a request frame: a packed little-endian record, read
# through numpy views without copying.
ARRIVAL_DTYPE = np.dtype([("index", "<u4"), ("round", "<u8"), ("arm", "<i4"), ("reward", "<f8")], align=False)
assert ARRIVAL_DTYPE.itemsize == ARRIVAL_BYTES

_req_head = struct.Struct("<IQBI")
_u32 = struct.Struct("<I")


class FrameError(ValueError):
    """A frame that does not follow the format."""


class Arrivals:
    """The rewards arriving at the start of a round (protocol 2, delayed
    feedback), as four numpy arrays of equal length m, ordered by index,
    then round: index (uint32, the replication's position in the batch),
    round (uint64, the round the arm was pulled in), arm (int32) and
    reward (float64). Decoded from a frame they are views of its buffer."""
    __slots__ = ("index", "round", "arm", "reward")

    def __init__(self, index=(), round=(), arm=(), reward=()):
        self.index = np.asarray(index, dtype=np.uint32)
        self.round = np.asarray(round, dtype=np.uint64)
        self.arm = np.asarray(arm, dtype=np.int32)
        self.reward = np.asarray(reward, dtype=np.float64)
        if not (len(self.index) == len(self.round) == len(self.arm) == len(self.reward)):
            raise ValueError("arrivals of %d indices, %d rounds, %d arms and %d rewards"
                             % (len(self.index), len(self.round), len(self.arm), len(self.reward)))

    @classmethod
    def from_records(cls, rec):
        """Arrivals viewing a structured array of ARRIVAL_DTYPE."""
        a = cls.__new__(cls)
        a.index, a.round, a.arm, a.reward = rec["index"], rec["round"], rec["arm"], rec["reward"]
        return a

    def __len__(self):
        return len(self.index)

    def tuples(self):
        """The arrivals as a list of (index, round, arm, reward)."""
        return list(zip(self.index.tolist(), self.round.tolist(), self.arm.tolist(), self.reward.tolist()))

    def __repr__(self):
        return "Arrivals(%r)" % self.tuples()


NO_ARRIVALS = Arrivals()


def encode_arrivals(arrivals):
    """The bytes of m arrivals (without their count): arrivals is an
    Arrivals or a sequence of (index, round, arm, reward)."""
    if not isinstance(arrivals, Arrivals):
        arrivals = Arrivals(*zip(*arrivals)) if len(arrivals) else NO_ARRIVALS
    rec = np.empty(len(arrivals), dtype=ARRIVAL_DTYPE)
    rec["index"], rec["round"], rec["arm"], rec["reward"] = (arrivals.index, arrivals.round,
                                                             arrivals.arm, arrivals.reward)
    return rec.tobytes()


def encode_request(round, arms, rewards, want_diag=False, arrivals=None, contexts=None):
    """A whole request frame, length prefix included. With arrivals (not
    None: delayed feedback, flag bit 1) rewards must be empty; with
    contexts (not None: a contextual session, flag bit 2) the frame ends
    with their block, every value in order (a numpy array of any shape is
    flattened)."""
    arms = np.asarray(arms, dtype="<i4")
    n = len(arms)
    flags = FLAG_WANT_DIAG if want_diag else 0
    if arrivals is not None:
        if len(rewards):
            raise FrameError("%d rewards with arrivals: under delayed feedback rewards come as arrivals"
                             % len(rewards))
        body = encode_arrivals(arrivals)
        body = arms.tobytes() + _u32.pack(len(body) // ARRIVAL_BYTES) + body
        flags |= FLAG_ARRIVALS
    else:
        rewards = np.asarray(rewards, dtype="<f8")
        if len(rewards) != n:
            raise FrameError("%d arms and %d rewards" % (n, len(rewards)))
        body = arms.tobytes() + rewards.tobytes()
    if contexts is not None:
        ctx = np.ascontiguousarray(contexts, dtype="<f8").reshape(-1)
        body += _u32.pack(len(ctx)) + ctx.tobytes()
        flags |= FLAG_CONTEXTS
    return _req_head.pack(REQUEST_HEADER + len(body), round, flags, n) + body


def decode_request(payload, max_arrivals=None):
    """(round, want_diag, arms, rewards, arrivals, contexts) of a request
    payload (the frame without its length prefix); arms and rewards are
    numpy views, arrivals None when flag bit 1 is clear, else an Arrivals
    of views, contexts None when flag bit 2 is clear, else a float64 view
    of the c values. max_arrivals (the rewards pending in the session;
    None: no bound) bounds the arrival count before anything is allocated
    by it."""
    if len(payload) < REQUEST_HEADER:
        raise FrameError("truncated frame")
    round, flags, n = struct.unpack_from("<QBI", payload)
    end = len(payload)
    contexts = None
    if flags & FLAG_CONTEXTS:
        contexts, end = _contexts_block(payload, n, flags)
    if flags & FLAG_ARRIVALS:
        # A memoryview's slice is a view: the arrivals stay views of payload.
        arms, arrivals = decode_arrivals(memoryview(payload)[:end] if contexts is not None else payload, n,
                                         max_arrivals)
        return round, bool(flags & FLAG_WANT_DIAG), arms, np.empty(0, "<f8"), arrivals, contexts
    if end - REQUEST_HEADER != 12 * n:
        raise FrameError("request frame of %d bytes for %d replications" % (len(payload), n))
    arms = np.frombuffer(payload, dtype="<i4", count=n, offset=REQUEST_HEADER)
    rewards = np.frombuffer(payload, dtype="<f8", count=n, offset=REQUEST_HEADER + 4 * n)
    return round, bool(flags & FLAG_WANT_DIAG), arms, rewards, None, contexts


def _contexts_block(payload, n, flags):
    """(contexts, start) of a request payload with flag bit 2: a view of
    the block's c float64 values, and where the block (its count) starts,
    which is where the arms and rewards, or arrivals, end."""
    if flags & FLAG_ARRIVALS:
        off = REQUEST_HEADER + 4 * n
        if len(payload) < off + 4:
            raise FrameError("truncated frame")
        (m,) = _u32.unpack_from(payload, off)
        start = off + 4 + ARRIVAL_BYTES * m
    else:
        start = REQUEST_HEADER + 12 * n
    if len(payload) < start + 4:
        raise FrameError("truncated frame: no contexts block after %d replications" % n)
    (c,) = _u32.unpack_from(payload, start)
    rest = len(payload) - start - 4
    if rest != 8 * c:
        raise FrameError("request frame with %d bytes of contexts for %d values" % (rest, c))
    return np.frombuffer(payload, dtype="<f8", count=c, offset=start + 4), start


def decode_arrivals(payload, n, max_arrivals=None):
    """(arms, arrivals) of a request payload with flag bit 1 announcing n
    replications: n arms, then uint32 m and m arrivals, m <= max_arrivals."""
    off = REQUEST_HEADER + 4 * n
    if len(payload) < off + 4:
        raise FrameError("truncated frame")
    (m,) = _u32.unpack_from(payload, off)
    if max_arrivals is not None and m > max_arrivals:
        raise FrameError("request frame with %d arrivals, but only %d rewards are pending" % (m, max_arrivals))
    rest = len(payload) - off - 4
    if rest != ARRIVAL_BYTES * m:
        raise FrameError("request frame with %d bytes of arrivals for %d arrivals" % (rest, m))
    arms = np.frombuffer(payload, dtype="<i4", count=n, offset=REQUEST_HEADER)
    rec = np.frombuffer(payload, dtype=ARRIVAL_DTYPE, count=m, offset=off + 4)
    return arms, Arrivals.from_records(rec)


def encode_response(arms, diagnostics=(), probs=None):
    """A whole OK response frame; diagnostics is d rows of n values;
    probs None in a context-free session, else the p = 0 or n values of a
    contextual one's probabilities block."""
    arms = np.asarray(arms, dtype="<i4")
    n = len(arms)
    diag = np.asarray(diagnostics, dtype="<f8").reshape(-1, n) if len(diagnostics) else np.empty((0, n), "<f8")
    body = (bytes([OK]) + _u32.pack(n) + arms.tobytes() + _u32.pack(diag.shape[0]) + diag.tobytes())
    if probs is not None:
        probs = np.asarray(probs, dtype="<f8")
        body += _u32.pack(len(probs)) + probs.tobytes()
    return _u32.pack(len(body)) + body


def encode_error(status, msg):
    """A whole error response frame (status FAILED or INVALID), its
    message truncated to MAX_ERROR_MSG bytes as the Go SDK does."""
    text = msg.encode("utf-8")
    if len(text) > MAX_ERROR_MSG:
        cut = b" [truncated]"
        text = text[:MAX_ERROR_MSG - len(cut)] + cut
    body = bytes([status]) + text
    return _u32.pack(len(body)) + body


def decode_response(payload, contextual=False):
    """(status, arms, diagnostics, probs, message) of a response payload:
    arms an int32 array, diagnostics a (d, n) float64 array and probs
    (contextual sessions only: the answer to a request with flag bit 2)
    a float64 array of 0 or n values, None otherwise, when the status is
    OK; message the text otherwise."""
    if len(payload) < 1:
        raise FrameError("truncated frame")
    status = payload[0]
    if status != OK:
        if status not in (FAILED, INVALID):
            raise FrameError("unknown response status %d" % status)
        return status, None, None, None, bytes(payload[1:]).decode("utf-8", "replace")
    if len(payload) < 5:
        raise FrameError("truncated frame")
    (n,) = _u32.unpack_from(payload, 1)
    if len(payload) < 5 + 4 * n + 4:
        raise FrameError("truncated frame")
    arms = np.frombuffer(payload, dtype="<i4", count=n, offset=5)
    (d,) = _u32.unpack_from(payload, 5 + 4 * n)
    off = 9 + 4 * n
    rest = len(payload) - off
    probs = None
    if contextual:
        if rest < 8 * n * d + 4:
            raise FrameError("response frame of a contextual session with %d bytes after the arms, want %d of "
                             "diagnostics and a probabilities block" % (rest, 8 * n * d))
        (p,) = _u32.unpack_from(payload, off + 8 * n * d)
        if p not in (0, n):
            raise FrameError("response frame with %d probabilities for %d replications, want 0 or %d" % (p, n, n))
        if rest != 8 * n * d + 4 + 8 * p:
            raise FrameError("response frame with %d bytes after the arms for %d diagnostics and %d probabilities "
                             "of %d replications" % (rest, d, p, n))
        probs = np.frombuffer(payload, dtype="<f8", count=p, offset=off + 8 * n * d + 4)
    elif rest != 8 * n * d:
        raise FrameError("response frame with %d diagnostics bytes for %d diagnostics of %d replications"
                         % (rest, d, n))
    diag = np.frombuffer(payload, dtype="<f8", count=n * d, offset=off).reshape(d, n)
    return OK, arms, diag, probs, ""
