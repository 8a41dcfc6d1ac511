import unittest

import numpy as np

import helpers  # noqa: F401
import regretbench as rb
from regretbench.rand import draw_bits


class ReplicaRngTest(unittest.TestCase):
    def test_keyed_by_seed_and_index_only(self):
        a = rb.replica_rng(7, 3).random(5)
        self.assertEqual(a.tolist(), rb.replica_rng(7, 3).random(5).tolist())
        self.assertNotEqual(a.tolist(), rb.replica_rng(7, 4).random(5).tolist())
        self.assertNotEqual(a.tolist(), rb.replica_rng(8, 3).random(5).tolist())


class KeyedDrawsTest(unittest.TestCase):
    def test_matches_the_scalar_reference(self):
        d = rb.KeyedDraws(2 ** 63 + 5, [0, 17], 3)
        got = d.bits(9).reshape(2, 3)
        want = [[draw_bits(2 ** 63 + 5, r, 9, j) for j in range(3)] for r in (0, 17)]
        self.assertEqual(got.tolist(), want)

    def test_batch_split_invariance(self):
        # Replication 5 gets the same numbers alone, first or last in a
        # batch, in every round, for every kind of draw and width.
        for width in (1, 4, 7):
            alone = rb.KeyedDraws(11, [5], width)
            first = rb.KeyedDraws(11, [5, 0, 9], width)
            last = rb.KeyedDraws(11, [2, 3, 5], width)
            for t in (1, 2, 1000):
                for kind in ("uniform", "normal"):
                    with self.subTest(width=width, t=t, kind=kind):
                        a = getattr(alone, kind)(t)[0].tolist()
                        self.assertEqual(getattr(first, kind)(t)[0].tolist(), a)
                        self.assertEqual(getattr(last, kind)(t)[2].tolist(), a)

    def test_blocks_of_rounds_give_the_numbers_of_one_round(self):
        # uniform and normal compute several rounds at once (block_rounds)
        # and serve the next rounds from the block: the numbers are those
        # of one round at a time, bit for bit, whatever the block, the
        # width (odd: the last normal of a draw dropped), and the order of
        # calls (rounds skipped, repeated, going back, both kinds mixed).
        calls = [("normal", t) for t in range(1, 40)] + [("uniform", t) for t in range(1, 40)]
        calls += [("normal", 50), ("normal", 50), ("uniform", 52), ("normal", 53), ("normal", 51),
                  ("uniform", 51), ("normal", 1000), ("uniform", 1001), ("normal", 2 ** 40), ("normal", 2 ** 40 + 1)]
        for n, width in ((1, 1), (3, 7), (40, 10), (9, 2)):
            one = rb.KeyedDraws(2 ** 64 - 3, range(100, 100 + n), width, block_rounds=1)
            want = [getattr(one, kind)(t).copy() for kind, t in calls]
            for block in (2, 5, 64, None):
                d = rb.KeyedDraws(2 ** 64 - 3, range(100, 100 + n), width, block_rounds=block)
                for (kind, t), w in zip(calls, want):
                    with self.subTest(n=n, width=width, block=block, kind=kind, t=t):
                        got = getattr(d, kind)(t)
                        self.assertEqual(got.shape, (n, width))
                        self.assertEqual(got.view(np.uint64).tolist(), w.view(np.uint64).tolist())
                        got[:] = -1.0  # a policy may scribble on it: a later call is fresh
        # and the first round's normals are Box-Muller on the scalar bits
        d = rb.KeyedDraws(5, [0, 17], 3)
        z = d.normal(4)
        for i, r in enumerate((0, 17)):
            for j in range(2):
                x = draw_bits(5, r, 4, j)
                u1 = 2.0 - np.frombuffer(((x >> 32) << 20 | 0x3FF0000000000000).to_bytes(8, "little"), "<f8")[0]
                u2 = np.frombuffer(((x & 0xFFFFFFFF) << 20 | 0x3FF0000000000000).to_bytes(8, "little"), "<f8")[0] - 1.0
                rad = np.sqrt(np.log(np.array([u1])) * -2.0)[0]
                ang = np.array([u2]) * (2 * np.pi)
                pair = (np.cos(ang)[0] * rad, np.sin(ang)[0] * rad)
                for q in range(2):
                    if 2 * j + q < 3:
                        self.assertEqual(z[i, 2 * j + q], pair[q])

    def test_a_block_serves_several_rounds(self):
        # The point of blocks: numpy's passes over the draws run once per
        # block of rounds, not once per round.
        d = rb.KeyedDraws(3, range(500), 10)
        self.assertGreater(d.block_rounds, 4)
        fills = []
        mix = d._mix
        d._mix = lambda x, y: fills.append(len(x)) or mix(x, y)
        for t in range(1, 101):
            d.normal(t)
            d.uniform(t)
        self.assertLessEqual(len(fills), 2 * (100 // d.block_rounds + 1))
        with self.assertRaises(ValueError):
            rb.KeyedDraws(3, range(5), 10, block_rounds=0)

    def test_keys_differ(self):
        base = rb.KeyedDraws(11, [5], 4).uniform(3)[0].tolist()
        for other in (rb.KeyedDraws(12, [5], 4), rb.KeyedDraws(11, [6], 4), rb.KeyedDraws(11, [5], 4, stream=1)):
            self.assertNotEqual(other.uniform(3)[0].tolist(), base)
        self.assertNotEqual(rb.KeyedDraws(11, [5], 4).uniform(4)[0].tolist(), base)

    def test_distributions(self):
        d = rb.KeyedDraws(3, range(2000), 50)
        u = np.concatenate([d.uniform(t).ravel().copy() for t in range(1, 5)])
        self.assertTrue(((u >= 0) & (u < 1)).all())
        self.assertAlmostEqual(u.mean(), 0.5, delta=0.005)
        self.assertAlmostEqual(u.var(), 1 / 12, delta=0.002)
        z = np.concatenate([d.normal(t).ravel().copy() for t in range(1, 5)])
        self.assertTrue(np.isfinite(z).all())
        self.assertAlmostEqual(z.mean(), 0.0, delta=0.01)
        self.assertAlmostEqual(z.std(), 1.0, delta=0.01)
        self.assertAlmostEqual((z > 1.96).mean(), 0.025, delta=0.002)
        # Neighbouring replications and rounds are uncorrelated.
        a = d.normal(7)
        self.assertLess(abs(np.corrcoef(a[:-1].ravel(), a[1:].ravel())[0, 1]), 0.02)


if __name__ == "__main__":
    unittest.main()
