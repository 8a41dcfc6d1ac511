import unittest

import numpy as np

import helpers  # noqa: F401
import regretbench as rb
from regretbench.core import Core, InvalidRequest, PolicyFailed

NONE_I, NONE_F = np.zeros(0, np.int32), np.zeros(0)


class RewardSDTest(unittest.TestCase):
    def test_fairness_rule(self):
        # As Go's Session.RewardSD: the declared sd only when known.
        self.assertEqual(rb.Session(2, 10, rb.GAUSSIAN, 0.7, True).reward_sd(), 0.7)
        self.assertEqual(rb.Session(2, 10, rb.BERNOULLI).reward_sd(), 0.5)
        for s, want in [(rb.Session(2, 10, rb.GAUSSIAN, 0.7, False), "known noise sd"),
                        (rb.Session(2, 10, rb.GAUSSIAN, 0.0, True), "want a finite value > 0"),
                        (rb.Session(2, 10, rb.GAUSSIAN, float("inf"), True), "want a finite value > 0"),
                        (rb.Session(2, 10, rb.GAUSSIAN, float("nan"), True), "want a finite value > 0"),
                        (rb.Session(2, 10, "poisson"), "unsupported reward family")]:
            with self.subTest(s=s):
                with self.assertRaises(rb.PolicyError) as cm:
                    s.reward_sd()
                self.assertIn(want, str(cm.exception))


class Recorder(rb.Policy):
    """Selects arm 1 always and records every call."""

    def __init__(self, s, r):
        self.calls = []

    def select(self, t):
        self.calls.append(("select", t))
        return 1

    def observe(self, t, arm, reward):
        self.calls.append(("observe", t, arm, reward))


class Garbage(rb.BatchPolicy):
    """Answers arm 99 always: fine only while the SDK forces the arms."""

    def __init__(self, s, reps):
        self.rounds = []

    def step(self, st):
        self.rounds.append((st.round, st.prev_arms.tolist()))
        st.arms[:] = 99


def open_session(plugin, k=3, horizon=10, reps=(0, 1), init_pulls=1, params=None):
    core = Core(plugin)
    return core, core.open(k, horizon, list(reps), 5, rb.GAUSSIAN, 1.0, True, params or {}, init_pulls)


class InitRoundsTest(unittest.TestCase):
    def test_per_replication_policies_do_not_select_in_forced_rounds(self):
        pols = []
        core, sid = open_session(rb.Plugin("r", "1", new=lambda s, r: pols.append(Recorder(s, r)) or pols[-1]))
        arms, _ = core.step(sid, 1, NONE_I, NONE_F, False)
        self.assertEqual(arms.tolist(), [0, 0])  # forced: (t-1) mod K
        for t in (2, 3):
            arms, _ = core.step(sid, t, arms.copy(), np.array([0.5, 0.25]), False)
            self.assertEqual(arms.tolist(), [t - 1] * 2)
        arms, _ = core.step(sid, 4, arms.copy(), np.array([1.0, 2.0]), False)
        self.assertEqual(arms.tolist(), [1, 1])  # the policy's own choice
        self.assertEqual(pols[1].calls, [("observe", 1, 0, 0.25), ("observe", 2, 1, 0.25),
                                         ("observe", 3, 2, 2.0), ("select", 4)])

    def test_batch_policy_arms_overwritten_in_forced_rounds(self):
        pols = []
        core, sid = open_session(rb.Plugin("g", "1", new_batch=lambda s, r: pols.append(Garbage(s, r)) or pols[-1]),
                                 k=2, init_pulls=2)
        arms = NONE_I
        for t in range(1, 5):
            arms, _ = core.step(sid, t, arms.copy(), np.zeros(len(arms)), False)
            self.assertEqual(arms.tolist(), [(t - 1) % 2] * 2)
        self.assertEqual([r for r, _ in pols[0].rounds], [1, 2, 3, 4])  # stepped in every round
        with self.assertRaises(PolicyFailed) as cm:
            core.step(sid, 5, arms.copy(), np.zeros(2), False)
        self.assertIn("replication 0: the policy returned arm 99, want 0..1", str(cm.exception))


class Rebinds(rb.BatchPolicy):
    """Binds st.arms to an array of its own instead of filling it."""

    def __init__(self, s, reps):
        self.answer = np.array([1] * len(reps), dtype=np.int64)

    def step(self, st):
        st.arms = self.answer


class RebindTest(unittest.TestCase):
    def test_rebound_arms_are_copied_and_checked(self):
        pols = []
        core, sid = open_session(rb.Plugin("b", "1", new_batch=lambda s, r: pols.append(Rebinds(s, r)) or pols[-1]),
                                 k=2, init_pulls=1, reps=(3, 8))
        out = np.zeros(2, np.int32)
        arms = NONE_I
        for t in (1, 2, 3):
            arms, _ = core.step(sid, t, arms.copy(), np.zeros(len(arms)), False, out)
            self.assertIs(arms, out)
        self.assertEqual(arms.tolist(), [1, 1])  # round 3: the policy's own answer, copied
        pols[0].answer[:] = [0, 1]
        arms, _ = core.step(sid, 4, arms.copy(), np.zeros(2), False, out)
        self.assertEqual(arms.tolist(), [0, 1])
        pols[0].answer[1] = 5
        with self.assertRaisesRegex(PolicyFailed, "replication 8: the policy returned arm 5, want 0..1"):
            core.step(sid, 5, arms.copy(), np.zeros(2), False, out)

    def test_rebound_diagnostics_are_copied_and_checked(self):
        # A policy that assigns st.diagnostics an array of its own: its
        # values reach the buffer the step socket sends (diag given), as
        # gRPC sends the array returned. Before, the socket sent zeros.
        class Own(rb.BatchPolicy):
            def __init__(self, s, reps):
                self.n, self.value = len(reps), None

            def step(self, st):
                st.arms[:] = 0
                if st.diagnostics is not None:
                    st.diagnostics = np.full((2, self.n), 7.5) if self.value is None else self.value

        pols = []
        plugin = rb.Plugin("d", "1", diagnostics=["a", "b"], new_batch=lambda s, r: pols.append(Own(s, r)) or pols[-1])
        for name, socket in (("gRPC", False), ("step socket", True)):
            with self.subTest(transport=name):
                pols.clear()
                core, sid = open_session(plugin, k=2, init_pulls=1, reps=(0, 1, 2))
                out, dbuf = np.zeros(3, np.int32), np.zeros((2, 3))
                arms, diag = core.step(sid, 1, NONE_I, NONE_F, True, out if socket else None, dbuf if socket else None)
                self.assertEqual(np.asarray(diag).tolist(), [[7.5] * 3] * 2)
                if socket:
                    self.assertIs(diag, dbuf)
                pols[0].value = [[1, 2, 3], [4, 5, 6]]  # a list of ints: fine
                arms, diag = core.step(sid, 2, arms.copy(), np.zeros(3), True, out if socket else None,
                                       dbuf if socket else None)
                self.assertEqual(np.asarray(diag).tolist(), [[1, 2, 3], [4, 5, 6]])
                for bad, want in ((np.zeros((3, 2)), r"diagnostics of shape \(3, 2\), want \(2, 3\)"),
                                  (np.array([["x"] * 3] * 2), "diagnostics of type <U1, want numbers")):
                    pols[0].value = bad
                    with self.assertRaisesRegex(PolicyFailed, want):
                        core.step(sid, 3, arms.copy(), np.zeros(3), True, out if socket else None,
                                  dbuf if socket else None)
        # None where diagnostics were asked for is refused too.
        class Drops(Own):
            def step(self, st):
                st.arms[:] = 0
                st.diagnostics = None
        core, sid = open_session(rb.Plugin("d", "1", diagnostics=["a", "b"], new_batch=Drops), reps=(0,))
        with self.assertRaisesRegex(PolicyFailed, r"set st.diagnostics to None; fill it, or assign an array of shape \(2, 1\)"):
            core.step(sid, 1, NONE_I, NONE_F, True)


class RequestErrorsTest(unittest.TestCase):
    def setUp(self):
        self.core, self.sid = open_session(rb.Plugin("r", "1", new=Recorder), reps=(4, 9))

    def test_bad_requests(self):
        c, sid = self.core, self.sid
        with self.assertRaisesRegex(InvalidRequest, "round 2 requested after round 0"):
            c.step(sid, 2, NONE_I, NONE_F, False)
        c.step(sid, 1, NONE_I, NONE_F, False)
        with self.assertRaisesRegex(InvalidRequest, "got 1 arms and 1 rewards, want 2 each"):
            c.step(sid, 2, np.zeros(1, np.int32), np.zeros(1), False)
        with self.assertRaisesRegex(InvalidRequest, "replication 1: arm 3 out of range"):
            c.step(sid, 2, np.array([0, 3], np.int32), np.zeros(2), False)
        with self.assertRaisesRegex(InvalidRequest, "unknown session 77"):
            c.step(77, 1, NONE_I, NONE_F, False)
        c.close(sid)
        with self.assertRaisesRegex(InvalidRequest, "unknown session"):
            c.close(sid)

    def test_open_errors(self):
        c = self.core
        with self.assertRaisesRegex(InvalidRequest, "open: arms=0"):
            c.open(0, 10, [0], 1, rb.GAUSSIAN, 1.0, True, {}, 0)
        with self.assertRaisesRegex(InvalidRequest, "open: unknown parameter 'x'"):
            c.open(2, 10, [0], 1, rb.GAUSSIAN, 1.0, True, {"x": 1.0}, 0)

    def test_policy_errors(self):
        def refuse(s, r):
            s.reward_sd()
        c = Core(rb.Plugin("z", "1", new=refuse))
        with self.assertRaisesRegex(PolicyFailed, "open: replication 3: gaussian rewards need a known noise sd"):
            c.open(2, 10, [3], 1, rb.GAUSSIAN, 1.0, False, {}, 0)

        class Bad(Recorder):
            def select(self, t):
                return 1.0
        c = Core(rb.Plugin("b", "1", new=Bad))
        sid = c.open(2, 10, [6, 7], 1, rb.GAUSSIAN, 1.0, True, {}, 0)
        with self.assertRaisesRegex(PolicyFailed, r"replication 6: select\(1\) returned 1.0, want an int arm"):
            c.step(sid, 1, NONE_I, NONE_F, False)

        class Raises(Recorder):
            def select(self, t):
                raise ZeroDivisionError("boom")
        c = Core(rb.Plugin("b", "1", new=Raises))
        sid = c.open(2, 10, [0], 1, rb.GAUSSIAN, 1.0, True, {}, 0)
        with self.assertRaises(PolicyFailed) as cm:
            c.step(sid, 1, NONE_I, NONE_F, False)
        self.assertIn("ZeroDivisionError: boom", str(cm.exception))  # with the traceback

    def test_diagnostics(self):
        class Diag(Recorder):
            def diagnose(self):
                return [len(self.calls), -1.0]
        c = Core(rb.Plugin("d", "1", new=Diag, diagnostics=["calls", "minus"]))
        sid = c.open(2, 10, [0, 1, 2], 1, rb.GAUSSIAN, 1.0, True, {}, 0)
        arms, diag = c.step(sid, 1, NONE_I, NONE_F, True)
        self.assertEqual(diag.tolist(), [[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]])
        _, diag = c.step(sid, 2, arms.copy(), np.zeros(3), False)
        self.assertIsNone(diag)
        with self.assertRaisesRegex(PolicyFailed, "has no diagnose"):
            Core(rb.Plugin("d", "1", new=Recorder, diagnostics=["x"])).open(
                2, 10, [0], 1, rb.GAUSSIAN, 1.0, True, {}, 0)


if __name__ == "__main__":
    unittest.main()
