import json
import os
import struct
import unittest

import helpers
from regretbench import frames

VECTORS = os.path.join(helpers.ROOT, "sdk", "testdata", "frames", "vectors.json")


def contextual(v):
    """Whether a response vector answers a contextual request (protocol
    3: a probabilities block after the diagnostics)."""
    return bool(v.get("contextual", "probs" in v))


class FrameVectorsTest(unittest.TestCase):
    """The byte-level vectors that the Go SDK checks too
    (internal/wire/framevectors_test.go)."""

    def test_vectors(self):
        with open(VECTORS) as f:
            vectors = json.load(f)["vectors"]
        self.assertGreater(len(vectors), 5)
        for v in vectors:
            with self.subTest(v["name"]):
                frame = bytes.fromhex(v["hex"])
                self.assertEqual(int.from_bytes(frame[:4], "little"), len(frame) - 4)
                payload = frame[4:]
                max_arrivals = v.get("max_arrivals", 1024)  # as internal/wire/framevectors_test.go
                if v.get("invalid"):
                    if v["direction"] == "request":
                        with self.assertRaises(frames.FrameError):
                            frames.decode_request(payload, max_arrivals)
                    else:
                        with self.assertRaises(frames.FrameError):
                            frames.decode_response(payload, contextual(v))
                elif v["direction"] == "request":
                    want_arr = None
                    if v.get("delayed"):
                        want_arr = [(a["index"], a["round"], a["arm"], a["reward"]) for a in v["arrivals"]]
                    want_ctx = v.get("contexts")  # protocol 3: flag bit 2
                    self.assertEqual(frames.encode_request(v["round"], v["arms"], v["rewards"],
                                                           v["want_diagnostics"], arrivals=want_arr,
                                                           contexts=want_ctx), frame)
                    rnd, want, arms, rewards, arr, ctx = frames.decode_request(payload, max_arrivals)
                    self.assertEqual((rnd, want, arms.tolist(), rewards.tolist()),
                                     (v["round"], v["want_diagnostics"], v["arms"], v["rewards"]))
                    self.assertEqual(None if arr is None else arr.tuples(), want_arr)
                    self.assertEqual(None if ctx is None else ctx.tolist(), want_ctx)
                elif v["status"] == frames.OK:
                    want_probs = v.get("probs") if contextual(v) else None
                    self.assertEqual(frames.encode_response(v["arms"], v["diagnostics"], want_probs), frame)
                    status, arms, diag, probs, _ = frames.decode_response(payload, contextual(v))
                    self.assertEqual((status, arms.tolist(), diag.tolist()),
                                     (0, v["arms"], v["diagnostics"]))
                    self.assertEqual(None if probs is None else probs.tolist(), want_probs)
                else:
                    self.assertEqual(frames.encode_error(v["status"], v["message"]), frame)
                    self.assertEqual(frames.decode_response(payload), (v["status"], None, None, None, v["message"]))

    def test_vectors_cover_arrivals(self):
        with open(VECTORS) as f:
            vectors = json.load(f)["vectors"]
        delayed = [v for v in vectors if v.get("delayed")]
        self.assertGreaterEqual(len(delayed), 3)
        self.assertTrue(any(len(v["arrivals"]) > 1 for v in delayed))

    def test_arrival_views_do_not_copy(self):
        frame = frames.encode_request(9, [1, 0], [], arrivals=[(0, 3, 1, 0.5), (1, 8, 0, 2.0)])
        payload = bytearray(frame[4:])
        _, _, arms, _, arr, _ = frames.decode_request(payload, 2)
        self.assertEqual(arr.tuples(), [(0, 3, 1, 0.5), (1, 8, 0, 2.0)])
        payload[-8:] = struct.pack("<d", 7.5)
        self.assertEqual(arr.reward.tolist(), [0.5, 7.5], "arrivals are views of the frame")

    def test_arrival_count_bounded_before_allocating(self):
        # A count of 2^32-1 with no bytes behind it: refused by the bound
        # (the pending rewards), with a message that says so.
        frame = bytearray(frames.encode_request(4, [0], [], arrivals=[]))
        frame[4 + 13 + 4:4 + 13 + 8] = (0xffffffff).to_bytes(4, "little")
        with self.assertRaisesRegex(frames.FrameError, "4294967295 arrivals, but only 5 rewards are pending"):
            frames.decode_request(bytes(frame[4:]), 5)
        with self.assertRaisesRegex(frames.FrameError, "bytes of arrivals"):
            frames.decode_request(bytes(frame[4:]))  # unbounded: the length still refuses it

    def test_rewards_with_arrivals_refused(self):
        with self.assertRaises(frames.FrameError):
            frames.encode_request(2, [0], [0.5], arrivals=[])

    def test_long_error_truncated(self):
        frame = frames.encode_error(frames.FAILED, "x" * 100000)
        self.assertEqual(len(frame), 4 + 1 + frames.MAX_ERROR_MSG)
        self.assertTrue(frame.endswith(b" [truncated]"))


if __name__ == "__main__":
    unittest.main()
