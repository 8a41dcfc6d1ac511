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
