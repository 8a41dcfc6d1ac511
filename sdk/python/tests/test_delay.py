"""Delayed and batched feedback (protocol 2): version negotiation,
Session.feedback, arrivals in both APIs and their validation."""

import unittest

import numpy as np

import helpers
import regretbench as rb
from regretbench import frames
from regretbench.core import Core, InvalidRequest
from regretbench.server import negotiate


def due_rounds(feedback, t, horizon, rng):
    """The round at whose start the reward of round t arrives (design §3)."""
    if feedback is None or feedback.kind == rb.DELAY:
        d = 0 if feedback is None else feedback.delay
    elif feedback.kind == rb.GEOMETRIC:
        d = int(rng.geometric(1 / (1 + feedback.mean))) - 1
    else:
        b = feedback.batch
        return ((t - 1) // b + 1) * b + 1
    return t + d + 1


class Host:
    """A small host: plays a session of core through rounds, with rewards
    mean[arm] + noise of its own and the feedback's arrivals, as bench
    would send them. Records every round's arms."""

    def __init__(self, core, k, horizon, reps, feedback, init_pulls=1, seed=5, params=None):
        self.core, self.k, self.T, self.n, self.fb = core, k, horizon, len(reps), feedback
        self.sid = core.open(k, horizon, reps, seed, "gaussian", 1.0, True, params or {}, init_pulls, feedback)
        self.rng = np.random.default_rng(11)
        self.means = np.linspace(0, 1, k)

    def run(self):
        pending = []  # (due, index, round, arm, reward)
        prev = np.zeros(0, np.int32)
        out = []
        for t in range(1, self.T + 1):
            if self.fb is None:
                rewards = np.array([r for (_, _, _, _, r) in pending])
                pending = []
                arms, _ = self.core.step(self.sid, t, prev, rewards, False)
            else:
                now = sorted((i, r, a, x) for (d, i, r, a, x) in pending if d == t)
                pending = [p for p in pending if p[0] != t]
                arr = frames.Arrivals(*zip(*now)) if now else None
                arms, _ = self.core.step(self.sid, t, prev, np.zeros(0), False, arrivals=arr)
            arms = arms.copy()
            out.append(arms.tolist())
            for i, a in enumerate(arms.tolist()):
                x = float(self.means[a] + self.rng.normal())
                pending.append((due_rounds(self.fb, t, self.T, self.rng), i, t, a, x))
            prev = arms.astype(np.int32)
        return out


class NegotiateTest(unittest.TestCase):
    def test_versions(self):
        for offered, want in [(None, 1), ("", 1), ("1", 1), ("2", 2), ("1,2", 2), ("2,1", 2), (" 1 , 2 ", 2),
                              ("1,2,3", 3), ("3", 3), ("2,3,4", 3), ("1,2,4", 2), ("x,1", 1)]:
            with self.subTest(offered=offered):
                self.assertEqual(negotiate(offered), want)
        with self.assertRaisesRegex(ValueError, "host speaks protocol versions 4,5; this plugin speaks 1,2,3"):
            negotiate("4,5")


class Recorder(rb.Policy):
    """Records the calls it gets, into the list shared by its batch."""

    def __init__(self, s, r, log):
        self.s, self.i, self.log = s, r.index, log

    def select(self, t):
        self.log.append(("select", self.i, t))
        return (t + self.i) % self.s.arms

    def observe(self, t, arm, reward):
        self.log.append(("observe", self.i, t, arm, reward))


class SessionFeedbackTest(unittest.TestCase):
    def test_session_carries_feedback(self):
        seen = []

        def new(s, r):
            seen.append(s)
            return Recorder(s, r, [])
        core = Core(rb.Plugin("rec", "1", new=new))
        core.open(2, 10, [0], 1, "gaussian", 1.0, True, {}, 0)
        fb = rb.Feedback(rb.GEOMETRIC, mean=2.5)
        core.open(2, 10, [0], 1, "gaussian", 1.0, True, {}, 0, fb)
        self.assertEqual((seen[0].feedback, seen[0].delayed), (None, False))
        self.assertEqual((seen[1].feedback, seen[1].delayed), (fb, True))
        self.assertEqual(str(fb), "geometric mean 2.5")

    def test_bad_feedback_refused_at_open(self):
        core = Core(rb.Plugin("rec", "1", new=lambda s, r: Recorder(s, r, [])))
        for fb, msg in [(rb.Feedback("bogus"), "unknown feedback kind 'bogus'"),
                        (rb.Feedback(rb.BATCH, batch=0), "feedback batch 0, want >= 1"),
                        (rb.Feedback(rb.GEOMETRIC, mean=float("nan")), "geometric mean nan"),
                        (rb.Feedback(rb.DELAY, delay=-1), "feedback delay -1")]:
            with self.subTest(fb=fb):
                with self.assertRaisesRegex(InvalidRequest, msg):
                    core.open(2, 10, [0], 1, "gaussian", 1.0, True, {}, 0, fb)


class ObserveOnArrivalTest(unittest.TestCase):
    def test_observe_before_select_in_order(self):
        log = []
        core = Core(rb.Plugin("rec", "1", new=lambda s, r: Recorder(s, r, log)))
        sid = core.open(3, 10, [4, 7], 1, "gaussian", 1.0, True, {}, 1, rb.Feedback(rb.DELAY, delay=2))
        no = np.zeros(0)
        core.step(sid, 1, np.zeros(0, np.int32), no, False)
        core.step(sid, 2, np.array([0, 0], np.int32), no, False)
        self.assertEqual(log, [], "forced rounds: no select; nothing arrived yet")
        # Round 3..: forced round 3, then both rewards of round 1 arrive at
        # the start of round 4 (delay 2), replication 0 of rounds 1 and 2
        # in round order.
        core.step(sid, 3, np.array([1, 1], np.int32), no, False)
        arr = frames.Arrivals([0, 0, 1], [1, 2, 1], [0, 1, 0], [0.5, 1.5, -1.0])
        arms, _ = core.step(sid, 4, np.array([2, 2], np.int32), no, False, arrivals=arr)
        # Every arrival is observed, in order, before any select.
        self.assertEqual(log, [("observe", 4, 1, 0, 0.5), ("observe", 4, 2, 1, 1.5), ("observe", 7, 1, 0, -1.0),
                               ("select", 4, 4), ("select", 7, 4)])
        self.assertEqual(arms.tolist(), [(4 + 4) % 3, (4 + 7) % 3])

    def test_delay_zero_is_immediate(self):
        # {delay: 0} gives every example the arms of immediate feedback.
        for name in ("klucbpy", "tsnp", "epsgreedy"):
            with self.subTest(name):
                plugin = helpers.load_example(name)["served"]
                immediate = Host(Core(plugin), 4, 60, [0, 3, 5], None).run()
                delayed = Host(Core(plugin), 4, 60, [0, 3, 5], rb.Feedback(rb.DELAY, delay=0)).run()
                self.assertEqual(delayed, immediate)

    def test_batch_examples_match_per_replication_under_delay(self):
        # The batch examples take several arrivals of one replication and
        # one arm in a round (np.add.at): a batch of three plays exactly
        # as each replication alone.
        for name in ("klucbpy", "tsnp"):
            for fb in (rb.Feedback(rb.DELAY, delay=3), rb.Feedback(rb.BATCH, batch=7)):
                with self.subTest(name=name, feedback=str(fb)):
                    plugin = helpers.load_example(name)["served"]
                    log = []

                    class Reference(rb.BatchPolicy):
                        """The example's batch policy, fed one arrival at a time."""
                        def __init__(self, s, replicas):
                            self.inner = plugin.new_batch(s, replicas)

                        def step(self, st):
                            arr = st.arrivals
                            for j in range(len(arr)):
                                one = frames.Arrivals(arr.index[j:j + 1], arr.round[j:j + 1], arr.arm[j:j + 1],
                                                      arr.reward[j:j + 1])
                                sub = rb.BatchStep(st.round, st.prev_arms, st.prev_rewards, np.zeros_like(st.arms),
                                                   None, one)
                                self.inner.step(sub)
                            log.append(len(arr))
                            st.arrivals = frames.NO_ARRIVALS
                            self.inner.step(st)
                    together = Host(Core(plugin), 5, 80, [0, 1, 2], fb).run()
                    ref = Host(Core(rb.Plugin(name, "1", new_batch=Reference, params=plugin.params)),
                               5, 80, [0, 1, 2], fb).run()
                    self.assertEqual(together, ref)
                    if fb.kind == rb.BATCH:
                        self.assertGreater(max(log), 3, "several arrivals of a replication in one round")
                    self.assertNotEqual(together, Host(Core(plugin), 5, 80, [0, 1, 2], None).run(),
                                        "the delay changes the play")


class ArrivalErrorsTest(unittest.TestCase):
    def setUp(self):
        self.core = Core(rb.Plugin("rec", "1", new=lambda s, r: Recorder(s, r, [])))
        self.sid = self.core.open(3, 20, [10, 11], 1, "gaussian", 1.0, True, {}, 0, rb.Feedback(rb.DELAY, delay=1))
        no = np.zeros(0)
        self.core.step(self.sid, 1, np.zeros(0, np.int32), no, False)
        self.core.step(self.sid, 2, np.array([0, 1], np.int32), no, False)
        # 4 rewards pulled in rounds 1-2, none arrived: round 3 may get them.

    def test_bad_arrivals(self):
        two = np.array([0, 1], np.int32)
        for name, arr, msg in [
            ("index", [(2, 1, 0, 0.0)], r"arrival 0: index 2, want 0\.\.1"),
            ("round now", [(0, 3, 0, 0.0)], r"arrival 0: replication 10: pulled in round 3, want 1\.\.2"),
            ("round 0", [(1, 0, 0, 0.0)], r"arrival 0: replication 11: pulled in round 0, want 1\.\.2"),
            ("arm", [(0, 1, 3, 0.0)], r"arrival 0: replication 10: arm 3 out of range"),
            ("negative arm", [(0, 1, -1, 0.0)], r"arrival 0: replication 10: arm -1 out of range"),
            ("repeat", [(0, 1, 0, 0.0), (0, 1, 0, 0.0)], r"arrival 1: \(index 0, round 1\) after \(index 0, round 1\)"),
            ("unordered", [(1, 1, 0, 0.0), (0, 1, 0, 0.0)], r"arrival 1: \(index 0, round 1\) after \(index 1"),
            ("rounds unordered", [(0, 2, 0, 0.0), (0, 1, 0, 0.0)], r"arrival 1: \(index 0, round 1\) after \(index 0, round 2\)"),
            ("too many", [(0, 1, 0, 0.0), (0, 2, 0, 0.0), (1, 1, 0, 0.0), (1, 2, 0, 0.0), (1, 3, 0, 0.0)],
             "5 arrivals, but only 4 rewards are pending"),
        ]:
            with self.subTest(name):
                with self.assertRaisesRegex(InvalidRequest, "session %d round 3: %s" % (self.sid, msg)):
                    self.core.step(self.sid, 3, two, np.zeros(0), False, arrivals=frames.Arrivals(*zip(*arr)))
        with self.assertRaisesRegex(InvalidRequest, r"\(feedback delay 1\): got 2 arms and 2 rewards, "
                                                    "want 2 arms and no rewards"):
            self.core.step(self.sid, 3, two, np.zeros(2), False)
        # Nothing went through: round 3 still plays, and every pending
        # reward may arrive, once.
        ok = frames.Arrivals([0, 0, 1, 1], [1, 2, 1, 2], [0, 1, 0, 1], [0.0] * 4)
        self.core.step(self.sid, 3, two, np.zeros(0), False, arrivals=ok)
        with self.assertRaisesRegex(InvalidRequest, "3 arrivals, but only 2 rewards are pending"):
            self.core.step(self.sid, 4, two, np.zeros(0), False,
                           arrivals=frames.Arrivals([0, 0, 1], [1, 3, 3], [0, 0, 0], [0.0] * 3))

    def test_arrivals_under_immediate_feedback(self):
        sid = self.core.open(3, 20, [10], 1, "gaussian", 1.0, True, {}, 0)
        self.core.step(sid, 1, np.zeros(0, np.int32), np.zeros(0), False)
        with self.assertRaisesRegex(InvalidRequest, "1 arrivals under immediate feedback"):
            self.core.step(sid, 2, np.array([0], np.int32), np.array([0.5]), False,
                           arrivals=frames.Arrivals([0], [1], [0], [0.5]))


if __name__ == "__main__":
    unittest.main()
