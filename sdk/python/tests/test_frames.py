import json
import os
import unittest

import helpers
from regretbench import frames

VECTORS = os.path.join(helpers.ROOT, "sdk", "testdata", "frames", "vectors.json")


class FrameVectorsTest(unittest.TestCase):
    """The byte-level vectors that the Go SDK checks too
    (sdk/framevectors_test.go)."""

    def test_vectors(self):
        with open(VECTORS) as f:
            vectors = json.load(f)["vectors"]
        self.assertGreater(len(vectors), 5)
        for v in vectors:
            with self.subTest(v["name"]):
                frame = bytes.fromhex(v["hex"])
                self.assertEqual(int.from_bytes(frame[:4], "little"), len(frame) - 4)
                payload = frame[4:]
                if v.get("invalid"):
                    decode = frames.decode_request if v["direction"] == "request" else frames.decode_response
                    with self.assertRaises(frames.FrameError):
                        decode(payload)
                elif v["direction"] == "request":
                    self.assertEqual(frames.encode_request(v["round"], v["arms"], v["rewards"],
                                                           v["want_diagnostics"]), frame)
                    rnd, want, arms, rewards, _ = frames.decode_request(payload)
                    self.assertEqual((rnd, want, arms.tolist(), rewards.tolist()),
                                     (v["round"], v["want_diagnostics"], v["arms"], v["rewards"]))
                elif v["status"] == frames.OK:
                    self.assertEqual(frames.encode_response(v["arms"], v["diagnostics"]), frame)
                    status, arms, diag, _ = frames.decode_response(payload)
                    self.assertEqual((status, arms.tolist(), diag.tolist()),
                                     (0, v["arms"], v["diagnostics"]))
                else:
                    self.assertEqual(frames.encode_error(v["status"], v["message"]), frame)
                    self.assertEqual(frames.decode_response(payload), (v["status"], None, None, v["message"]))

    def test_long_error_truncated(self):
        frame = frames.encode_error(frames.FAILED, "x" * 100000)
        self.assertEqual(len(frame), 4 + 1 + frames.MAX_ERROR_MSG)
        self.assertTrue(frame.endswith(b" [truncated]"))


if __name__ == "__main__":
    unittest.main()
