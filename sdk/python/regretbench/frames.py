"""The step socket's binary frames (docs/step-socket.md), as sdk/frame.go.

Every frame is a uint32 length followed by that many bytes; integers and
floats are little-endian.

  request:  uint64 round | uint8 flags (bit 0: want diagnostics) |
            uint32 n | n x int32 prev arms | n x float64 prev rewards
  response: uint8 status, then
            status 0: uint32 n | n x int32 arms | uint32 d |
                      d x n x float64 diagnostics
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

_req_head = struct.Struct("<IQBI")
_u32 = struct.Struct("<I")


class FrameError(ValueError):
    """A frame that does not follow the format."""


def encode_request(round, arms, rewards, want_diag=False):
    """A whole request frame, length prefix included."""
    arms = np.asarray(arms, dtype="<i4")
    rewards = np.asarray(rewards, dtype="<f8")
    n = len(arms)
    if len(rewards) != n:
        raise FrameError("%d arms and %d rewards" % (n, len(rewards)))
    return (_req_head.pack(REQUEST_HEADER + 12 * n, round, 1 if want_diag else 0, n)
            + arms.tobytes() + rewards.tobytes())


def decode_request(payload):
    """(round, want_diag, arms, rewards) of a request payload (the frame
    without its length prefix); arms and rewards are numpy views."""
    if len(payload) < REQUEST_HEADER:
        raise FrameError("truncated frame")
    round, flags, n = struct.unpack_from("<QBI", payload)
    if len(payload) - REQUEST_HEADER != 12 * n:
        raise FrameError("request frame of %d bytes for %d replications" % (len(payload), n))
    arms = np.frombuffer(payload, dtype="<i4", count=n, offset=REQUEST_HEADER)
    rewards = np.frombuffer(payload, dtype="<f8", count=n, offset=REQUEST_HEADER + 4 * n)
    return round, bool(flags & 1), arms, rewards


def encode_response(arms, diagnostics=()):
    """A whole OK response frame; diagnostics is d rows of n values."""
    arms = np.asarray(arms, dtype="<i4")
    n = len(arms)
    diag = np.asarray(diagnostics, dtype="<f8").reshape(-1, n) if len(diagnostics) else np.empty((0, n), "<f8")
    body = (bytes([OK]) + _u32.pack(n) + arms.tobytes() + _u32.pack(diag.shape[0]) + diag.tobytes())
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


def decode_response(payload):
    """(status, arms, diagnostics, message) of a response payload:
    arms an int32 array and diagnostics a (d, n) float64 array when the
    status is OK, message the text otherwise."""
    if len(payload) < 1:
        raise FrameError("truncated frame")
    status = payload[0]
    if status != OK:
        if status not in (FAILED, INVALID):
            raise FrameError("unknown response status %d" % status)
        return status, None, None, bytes(payload[1:]).decode("utf-8", "replace")
    if len(payload) < 5:
        raise FrameError("truncated frame")
    (n,) = _u32.unpack_from(payload, 1)
    if len(payload) < 5 + 4 * n + 4:
        raise FrameError("truncated frame")
    arms = np.frombuffer(payload, dtype="<i4", count=n, offset=5)
    (d,) = _u32.unpack_from(payload, 5 + 4 * n)
    rest = len(payload) - (9 + 4 * n)
    if rest != 8 * n * d:
        raise FrameError("response frame with %d diagnostics bytes for %d diagnostics of %d replications"
                         % (rest, d, n))
    diag = np.frombuffer(payload, dtype="<f8", count=n * d, offset=9 + 4 * n).reshape(d, n)
    return OK, arms, diag, ""
