"""The linucbnp example: its Sherman-Morrison updates against a direct
solve, its index, ties, defaults, and batch independence."""

import unittest

import numpy as np

import helpers
import regretbench as rb
from regretbench.core import Core

NS = helpers.load_example("linucbnp")
LinUCB, PLUGIN = NS["LinUCB"], NS["served"]


def session(k, d, per_arm, alpha=1.0, lam=1.0):
    return rb.Session(arms=k, horizon=1000, params={"alpha": alpha, "lambda": lam}, context=rb.Context(d, per_arm))


def replicas(n):
    return [rb.Replica(i, None) for i in range(n)]


class LinUCBTest(unittest.TestCase):
    def test_defaults_match_go_linucb(self):
        self.assertEqual({p.name: p.default for p in PLUGIN.params}, {"alpha": 1.0, "lambda": 1.0})
        self.assertEqual((PLUGIN.contextual, PLUGIN.context_free), (True, False))

    def test_update_against_direct_solve(self):
        # After 60 rounds of random pulls, every arm's A^{-1} (kept by
        # Sherman-Morrison) is the inverse of lambda*I + sum x x^T and its
        # theta the solution of A theta = b, from the same data directly.
        for per_arm, lam in ((False, 1.0), (True, 0.3)):
            with self.subTest(per_arm=per_arm, lam=lam):
                n, k, d = 3, 4, 5
                pol = LinUCB(session(k, d, per_arm, lam=lam), replicas(n))
                rng = np.random.default_rng(4)
                a_direct = np.broadcast_to(lam * np.eye(d), (n, k, d, d)).copy()
                b_direct = np.zeros((n, k, d))
                for _ in range(60):
                    x = rng.normal(size=(n, k, d) if per_arm else (n, d))
                    arms = rng.integers(0, k, size=n).astype(np.int32)
                    r = rng.normal(size=n)
                    pol.step(rb.BatchStep(round=2, prev_arms=arms, prev_rewards=r, prev_contexts=x,
                                          contexts=x, arms=np.zeros(n, np.int32), probs=np.zeros(n)))
                    for i in range(n):
                        xi = x[i, arms[i]] if per_arm else x[i]
                        a_direct[i, arms[i]] += np.outer(xi, xi)
                        b_direct[i, arms[i]] += r[i] * xi
                np.testing.assert_allclose(pol.ainv, np.linalg.inv(a_direct), rtol=1e-9, atol=1e-12)
                np.testing.assert_allclose(pol.theta, np.linalg.solve(a_direct, b_direct[..., None])[..., 0],
                                           rtol=1e-9, atol=1e-12)
                # The index: theta.x + alpha*sqrt(x^T A^{-1} x), by solves.
                x = rng.normal(size=(n, k, d) if per_arm else (n, d))
                xa = x if per_arm else np.broadcast_to(x[:, None, :], (n, k, d))
                want = (np.einsum("nkd,nkd->nk", np.linalg.solve(a_direct, b_direct[..., None])[..., 0], xa)
                        + np.sqrt(np.einsum("nkd,nkd->nk", np.linalg.solve(a_direct, xa[..., None])[..., 0], xa)))
                np.testing.assert_allclose(pol.scores(x), want, rtol=1e-9, atol=1e-12)

    def test_ties_to_the_lowest_arm(self):
        # Round 1: every index is |x|/sqrt(lambda), the same for every arm:
        # arm 0. Per-arm features with arms 1 and 2 equal and best: arm 1.
        core = Core(PLUGIN)
        sid = core.open(4, 10, [0, 1], 1, rb.GAUSSIAN, 1.0, True, {}, 0, None, rb.Context(3))
        arms, _, probs = core.step_contextual(sid, 1, np.zeros(0, np.int32), np.zeros(0), np.ones(6), False)
        self.assertEqual((arms.tolist(), probs.tolist()), ([0, 0], [1.0, 1.0]))
        sid = core.open(3, 10, [0], 1, rb.GAUSSIAN, 1.0, True, {}, 0, None, rb.Context(2, per_arm=True))
        x = np.array([[1.0, 0.0], [2.0, 1.0], [2.0, 1.0]])
        arms, _, _ = core.step_contextual(sid, 1, np.zeros(0, np.int32), np.zeros(0), x.reshape(-1), False)
        self.assertEqual(arms.tolist(), [1])

    def play(self, reps, per_arm, rounds=80, params=None):
        """Plays reps on a linear problem of their own (keyed by the
        replication index); returns each replication's arms and mean regret."""
        k, d = 5, 4
        core = Core(PLUGIN)
        sid = core.open(k, rounds, reps, 1, rb.GAUSSIAN, 0.1, True, params or {}, 0, None, rb.Context(d, per_arm))
        rngs = [np.random.default_rng(100 + r) for r in reps]
        thetas = [g.normal(size=(k, d)) for g in rngs]
        prev, prev_r, out, regret = np.zeros(0, np.int32), np.zeros(0), [], np.zeros((rounds, len(reps)))
        for t in range(1, rounds + 1):
            x = np.stack([g.normal(size=(k, d) if per_arm else d) for g in rngs])
            mu = np.stack([(x[i] * thetas[i]).sum(-1) if per_arm else thetas[i] @ x[i] for i in range(len(reps))])
            arms, _, _ = core.step_contextual(sid, t, prev, prev_r, x.reshape(-1), False)
            prev = arms.copy()
            i = np.arange(len(reps))
            prev_r = mu[i, prev] + 0.1 * np.stack([g.normal() for g in rngs])
            regret[t - 1] = mu.max(1) - mu[i, prev]
            out.append(prev.tolist())
        return np.array(out), regret

    def test_batch_plays_as_each_replication_alone(self):
        for per_arm in (False, True):
            with self.subTest(per_arm=per_arm):
                together, _ = self.play([0, 1, 2], per_arm)
                for j, r in enumerate([0, 1, 2]):
                    alone, _ = self.play([r], per_arm)
                    self.assertEqual(together[:, j].tolist(), alone[:, 0].tolist(), "replication %d" % r)

    def test_learns(self):
        # On a linear problem the regret of the last rounds is well below
        # that of the first ones; without the bonus (alpha 0) the policy
        # still plays, greedily.
        _, regret = self.play(list(range(20)), False, rounds=200)
        self.assertLess(regret[-50:].mean(), 0.25 * regret[:20].mean())
        greedy, _ = self.play([0], False, rounds=20, params={"alpha": 0.0})
        self.assertEqual(greedy.shape, (20, 1))


if __name__ == "__main__":
    unittest.main()
