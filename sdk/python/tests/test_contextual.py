"""Contextual sessions (protocol 3): the step socket's frames with flag bit
2 and the probabilities block, Session.context, the contextual batch and
per-replication APIs, probabilities, refusals, and sessions played over
the step socket and gRPC."""

import os
import socket
import subprocess
import unittest

import numpy as np

import helpers
import regretbench as rb
from regretbench import frames
from regretbench.core import Core, InvalidRequest, PolicyFailed
from regretbench.server import CONTEXTUAL_VERSION, contextual_flags, describe_dict

NONE_I, NONE_F = np.zeros(0, np.int32), np.zeros(0)

# Byte-level vectors of protocol 3's frames, written from the specification
# in policy.proto (OpenResponse.step_socket) and docs/contextual.md with
# struct, not with frames.py: uint32 length | uint64 round | uint8 flags |
# uint32 n | n int32 arms | n float64 rewards (or, with bit 1, uint32 m and
# m arrivals) | uint32 c | c float64 contexts; a response ends with uint32 p
# | p float64 probs after the diagnostics.
CONTEXT_VECTORS = [
    dict(name="request round 1 with contexts", direction="request",
         doc="flags 4, no previous arms, 2 replications x dim 2",
         hex="310000000100000000000000040000000004000000000000000000e03f000000000000f0bf0000000000000040000000000000"
             "d03f",
         round=1, want_diagnostics=False, arms=[], rewards=[], contexts=[0.5, -1.0, 2.0, 0.25]),
    dict(name="request contexts with diagnostics", direction="request",
         doc="flags 5: bits 0 and 2; the contexts after the rewards",
         hex="49000000030000000000000005020000000100000000000000000000000000e03f000000000000f4bf04000000000000000000"
             "f03f0000000000000000000000000000e0bf0000000000000840",
         round=3, want_diagnostics=True, arms=[1, 0], rewards=[0.5, -1.25], contexts=[1.0, 0.0, -0.5, 3.0]),
    dict(name="request arrivals and contexts", direction="request",
         doc="flags 6: bits 1 and 2; the contexts after the arrivals",
         hex="4900000004000000000000000601000000020000000100000000000000010000000000000002000000000000000000e83f0300"
             "00009a9999999999b93f9a9999999999c93f333333333333d33f",
         round=4, want_diagnostics=False, arms=[2], rewards=[], arrivals=[(0, 1, 2, 0.75)], contexts=[0.1, 0.2, 0.3]),
    dict(name="response with probs", direction="response", status=0,
         hex="25000000000200000001000000000000000000000002000000000000000000f03f000000000000d03f",
         arms=[1, 0], diagnostics=[], probs=[1.0, 0.25]),
    dict(name="response with diagnostics, no probs", direction="response", status=0,
         hex="1900000000010000000200000001000000000000000000e03f00000000",
         arms=[2], diagnostics=[[0.5]], probs=[]),
    dict(name="request contexts count mismatch", direction="request", invalid=True,
         hex="210000000100000000000000040000000003000000000000000000e03f000000000000f0bf"),
    dict(name="response probs count not 0 or n", direction="response", invalid=True,
         hex="1d000000000200000001000000000000000000000001000000000000000000f03f"),
    dict(name="response without its probs block", direction="response", invalid=True,
         hex="110000000002000000010000000000000000000000"),
]


class ContextFramesTest(unittest.TestCase):
    def test_vectors(self):
        for v in CONTEXT_VECTORS:
            with self.subTest(v["name"]):
                frame = bytes.fromhex(v["hex"])
                self.assertEqual(int.from_bytes(frame[:4], "little"), len(frame) - 4)
                payload = frame[4:]
                if v.get("invalid"):
                    with self.assertRaises(frames.FrameError):
                        if v["direction"] == "request":
                            frames.decode_request(payload, 1024)
                        else:
                            frames.decode_response(payload, contextual=True)
                elif v["direction"] == "request":
                    arr = v.get("arrivals")
                    self.assertEqual(frames.encode_request(v["round"], v["arms"], v["rewards"], v["want_diagnostics"],
                                                           arrivals=arr, contexts=v["contexts"]), frame)
                    rnd, want, arms, rewards, got_arr, ctx = frames.decode_request(payload, 1024)
                    self.assertEqual((rnd, want, arms.tolist(), rewards.tolist(), ctx.tolist()),
                                     (v["round"], v["want_diagnostics"], v["arms"], v["rewards"], v["contexts"]))
                    self.assertEqual(None if got_arr is None else got_arr.tuples(), arr)
                else:
                    self.assertEqual(frames.encode_response(v["arms"], v["diagnostics"], v["probs"]), frame)
                    status, arms, diag, probs, _ = frames.decode_response(payload, contextual=True)
                    self.assertEqual((status, arms.tolist(), diag.tolist(), probs.tolist()),
                                     (0, v["arms"], v["diagnostics"], v["probs"]))

    def test_context_free_frames_unchanged(self):
        # Without contexts a frame is byte for byte protocol 1's (and 2's),
        # and a context-free response has no probabilities block.
        self.assertEqual(frames.encode_request(2, [1], [0.5], True)[4:][8], frames.FLAG_WANT_DIAG)
        self.assertEqual(frames.decode_request(frames.encode_request(2, [1], [0.5])[4:])[5], None)
        self.assertEqual(frames.encode_response([1, 0], [], None), frames.encode_response([1, 0]))
        self.assertIsNone(frames.decode_response(frames.encode_response([1, 0])[4:])[3])
        with self.assertRaises(frames.FrameError):  # a contextual answer read as a context-free one
            frames.decode_response(frames.encode_response([1, 0], [], [1.0, 1.0])[4:])

    def test_contexts_are_views_of_the_frame(self):
        payload = bytearray(frames.encode_request(2, [0, 1], [0.5, 1.5], contexts=np.arange(6.0))[4:])
        ctx = frames.decode_request(payload)[5]
        payload[-8:] = np.float64(-9.0).tobytes()
        self.assertEqual(ctx.tolist(), [0, 1, 2, 3, 4, -9.0])


class Recorder(rb.BatchPolicy):
    """Records what every step shows it (copies), answers arm (round + i)
    mod K and the probabilities it is told to."""

    def __init__(self, s, reps):
        self.s, self.n, self.log = s, len(reps), []
        self.probs = None  # what to answer: None leaves st.probs as given
        self.keep = None   # the arrays of the last step, for identity checks

    def step(self, st):
        self.keep = st
        if st.contexts is None:  # a context-free session
            st.arms[:] = 0
            return
        self.log.append(dict(round=st.round, contexts=st.contexts.copy(), prev_contexts=st.prev_contexts.copy(),
                             prev_arms=st.prev_arms.tolist(), prev_rewards=st.prev_rewards.tolist(),
                             owndata=st.contexts.flags.owndata, aligned=st.contexts.ctypes.data % 8 == 0,
                             probs_in=st.probs.tolist()))
        st.arms[:] = (st.round + np.arange(self.n)) % self.s.arms
        if self.probs is not None:
            if isinstance(self.probs, str):
                st.probs = None
            elif np.ndim(self.probs) == 0:
                st.probs[:] = self.probs
            else:
                st.probs = self.probs


class Choosy(rb.ContextualPolicy):
    """A per-replication contextual policy: the arm of the largest
    feature (shared contexts) or of the largest first feature (per arm);
    records its calls."""

    def __init__(self, s, r, log, prob):
        self.s, self.i, self.log, self.prob = s, r.index, log, prob

    def select(self, t, x):
        self.log.append(("select", self.i, t, x.copy()))
        a = int(np.argmax(x if not self.s.context.per_arm else x[:, 0])) % self.s.arms
        return a if self.prob is None else (a, self.prob)

    def observe(self, t, x, arm, reward):
        self.log.append(("observe", self.i, t, x.copy(), arm, reward))


class DiagRecorder(Recorder):
    """A Recorder whose diagnostic is the round."""

    def step(self, st):
        super().step(st)
        if st.diagnostics is not None:
            st.diagnostics[:] = st.round


def contexts(rng, n, k, ctx):
    return rng.normal(size=(n,) + ctx.shape(k))


def batch_plugin(pols, **kw):
    return rb.Plugin("rec", "1", new_contextual_batch=lambda s, r: pols.append(Recorder(s, r)) or pols[-1], **kw)


class ContextualCoreTest(unittest.TestCase):
    def play(self, core, sid, xs, rewards_of, probs=None):
        """Plays the rounds of xs; returns (arms, probs) of each round."""
        out, prev = [], NONE_I
        prev_r = NONE_F
        for t, x in enumerate(xs, 1):
            arms, _, p = core.step_contextual(sid, t, prev, prev_r, x.reshape(-1), False, probs=probs)
            out.append((arms.tolist(), None if p is None else p.tolist()))
            prev = arms.copy()
            prev_r = rewards_of(t, prev)
        return out

    def test_batch_sees_views_shapes_and_previous_contexts(self):
        for ctx in (rb.Context(3), rb.Context(2, per_arm=True)):
            with self.subTest(context=str(ctx)):
                pols = []
                core = Core(batch_plugin(pols))
                k, reps = 4, [5, 1, 9]
                sid = core.open(k, 20, reps, 7, rb.GAUSSIAN, 1.0, True, {}, 0, None, ctx)
                s = pols[0].s
                self.assertEqual((s.context, s.contextual, ctx.width(k)), (ctx, True, 3 if not ctx.per_arm else 8))
                rng = np.random.default_rng(3)
                xs = [contexts(rng, len(reps), k, ctx) for _ in range(4)]
                flat = xs[1].reshape(-1)
                got = self.play(core, sid, xs[:1], lambda t, a: a * 0.5)
                core.step_contextual(sid, 2, np.array(got[0][0], np.int32), np.array([0.0, 1.0, 2.0]), flat, False)
                log = pols[0].log
                self.assertEqual(log[0]["contexts"].shape, (3,) + ctx.shape(k))
                self.assertEqual(log[0]["prev_contexts"].shape, (0,) + ctx.shape(k), "round 1: no previous contexts")
                self.assertTrue(np.array_equal(log[0]["contexts"], xs[0]))
                self.assertTrue(np.array_equal(log[1]["contexts"], xs[1]))
                self.assertTrue(np.array_equal(log[1]["prev_contexts"], xs[0]), "round 2 sees round 1's contexts")
                self.assertEqual((log[1]["prev_arms"], log[1]["prev_rewards"]), (got[0][0], [0.0, 1.0, 2.0]))
                self.assertFalse(log[1]["owndata"], "the contexts are a view of the buffer received, not a copy")
                self.assertEqual(log[1]["probs_in"], [0.0] * 3, "probs start at 0 every round")
                # The SDK drops its views once the round is answered.
                self.assertIsNone(pols[0].keep.contexts)

    def test_contexts_are_a_view_during_the_step(self):
        seen = []

        class Looks(rb.BatchPolicy):
            def __init__(self, s, r):
                pass

            def step(self, st):
                seen.append(np.shares_memory(st.contexts, given))
                st.arms[:] = 0

        core = Core(rb.Plugin("v", "1", new_contextual_batch=Looks))
        sid = core.open(2, 5, [0, 1], 1, rb.GAUSSIAN, 1.0, True, {}, 0, None, rb.Context(3))
        given = np.arange(6.0)
        core.step_contextual(sid, 1, NONE_I, NONE_F, given, False)
        self.assertEqual(seen, [True])

    def test_probs_answered_and_checked(self):
        pols = []
        core = Core(batch_plugin(pols))
        sid = core.open(3, 30, [2, 4], 1, rb.GAUSSIAN, 1.0, True, {}, 0, None, rb.Context(2))
        rng = np.random.default_rng(1)
        rnd = [0]

        def step(probs, pbuf=None):
            pols[0].probs = probs
            rnd[0] += 1
            prev = NONE_I if rnd[0] == 1 else np.zeros(2, np.int32)
            prev_r = NONE_F if rnd[0] == 1 else np.zeros(2)
            return core.step_contextual(sid, rnd[0], prev, prev_r, contexts(rng, 2, 3, rb.Context(2)).reshape(-1),
                                        False, probs=pbuf)[2]

        self.assertIsNone(step(None), "nothing said: no probabilities")
        self.assertIsNone(step(0.0))
        self.assertEqual(step(1.0).tolist(), [1.0, 1.0])
        self.assertEqual(step(np.array([0.25, 0.0])).tolist(), [0.25, 0.0], "an array of its own, 0 = not said")
        self.assertEqual(step([1, 0.5]).tolist(), [1.0, 0.5], "a list of numbers")
        buf = np.full(2, 9.0)
        got = step(0.5, buf)
        self.assertIs(got, buf, "the step socket's buffer is answered in")
        self.assertEqual(buf.tolist(), [0.5, 0.5])
        for bad, want in ((1.5, "replication 2: the policy gave its arm probability 1.5, want a value in "
                                "\\(0, 1\\], or 0 for not said"),
                          (np.array([0.5, -0.25]), "replication 4: .* probability -0.25"),
                          (np.array([np.nan, 1]), "replication 2: .* probability nan"),
                          (np.array([1, np.inf]), "replication 4: .* probability inf"),
                          (np.ones(3), r"probabilities of shape \(3,\), want \(2,\)"),
                          (np.array(["a", "b"]), "probabilities of type <U1, want floats"),
                          ("none", r"set st.probs to None; fill it, or assign an array of shape \(2,\)")):
            with self.subTest(probs=repr(bad)):
                with self.assertRaisesRegex(PolicyFailed, want):
                    step(bad)
                rnd[0] -= 1  # a failed round is not played

    def test_forced_rounds_say_no_probabilities(self):
        pols = []
        core = Core(batch_plugin(pols))
        sid = core.open(2, 10, [0], 1, rb.GAUSSIAN, 1.0, True, {}, 1, None, rb.Context(1))
        pols[0].probs = 1.0
        got = self.play(core, sid, [np.ones((1, 1))] * 3, lambda t, a: np.zeros(1))
        self.assertEqual(got, [([0], None), ([1], None), ([1], [1.0])])  # rounds 1, 2 forced: arm t-1
        self.assertEqual([e["round"] for e in pols[0].log], [1, 2, 3], "stepped in every round, forced too")

    def test_per_replication_contextual_policy(self):
        for ctx, prob in ((rb.Context(3), 0.5), (rb.Context(2, per_arm=True), None)):
            with self.subTest(context=str(ctx)):
                log = []
                core = Core(rb.Plugin("c", "1", new_contextual=lambda s, r: Choosy(s, r, log, prob)))
                k, reps = 3, [4, 7]
                sid = core.open(k, 10, reps, 1, rb.GAUSSIAN, 1.0, True, {}, 0, None, ctx)
                rng = np.random.default_rng(5)
                xs = [contexts(rng, 2, k, ctx) for _ in range(3)]
                got = self.play(core, sid, xs, lambda t, a: a + 10.0 * t)
                want_arms = [[int(np.argmax(x[i] if not ctx.per_arm else x[i][:, 0])) for i in range(2)] for x in xs]
                self.assertEqual([a for a, _ in got], want_arms)
                self.assertEqual([p for _, p in got], [None if prob is None else [prob] * 2] * 3)
                # Round 2: observe(1, x of round 1, arm, reward), then select(2, x of round 2).
                r2 = [e for e in log if (e[0] == "select" and e[2] == 2) or (e[0] == "observe" and e[2] == 1)]
                self.assertEqual([(e[0], e[1], e[2]) for e in r2],
                                 [("observe", 4, 1), ("observe", 7, 1), ("select", 4, 2), ("select", 7, 2)])
                self.assertTrue(np.array_equal(r2[1][3], xs[0][1]))
                self.assertEqual((r2[1][4], r2[1][5]), (want_arms[0][1], want_arms[0][1] + 10.0))
                self.assertTrue(np.array_equal(r2[3][3], xs[1][1]))

    def test_per_replication_bad_answers(self):
        class Bad(rb.ContextualPolicy):
            def __init__(self, s, r):
                self.i = r.index

            def select(self, t, x):
                return answer

            def observe(self, t, x, arm, reward):
                pass

        for answer, want in (((5, 1.0), "replication 3: select\\(1, x\\) returned arm 5, want 0..1"),
                             ("x", "returned 'x', want an int arm or \\(arm, prob\\)"),
                             ((0, "p"), "returned probability 'p', want a float"),
                             ((0, 2.0), "replication 3: the policy gave its arm probability 2.0")):
            with self.subTest(answer=answer):
                core = Core(rb.Plugin("b", "1", new_contextual=Bad))
                sid = core.open(2, 5, [3], 1, rb.GAUSSIAN, 1.0, True, {}, 0, None, rb.Context(1))
                with self.assertRaisesRegex(PolicyFailed, want):
                    core.step_contextual(sid, 1, NONE_I, NONE_F, np.zeros(1), False)

    def test_refusals(self):
        free = rb.Plugin("free", "1", new=lambda s, r: None)
        only = batch_plugin([])
        both = rb.Plugin("both", "1", new_batch=lambda s, r: Recorder(s, r),
                         new_contextual_batch=lambda s, r: Recorder(s, r))
        ctx = rb.Context(4)
        args = (3, 10, [0, 1], 1, rb.GAUSSIAN, 1.0, True, {}, 0)
        for plugin, fb, c, want in (
                (free, None, ctx, "plugin free plays no contextual sessions .*this session has contexts \\(dim 4\\)"),
                (only, None, None, "plugin rec plays only contextual sessions .*this session has no context"),
                (only, rb.Feedback(rb.DELAY, delay=1), ctx,
                 "delayed feedback \\(delay 1\\) with contexts: contextual sessions take immediate feedback only"),
                (only, None, rb.Context(0), "context dim 0, want >= 1"),
                (only, None, rb.Context(1 << 24, per_arm=True), "over the limit")):
            with self.subTest(want=want):
                with self.assertRaisesRegex(InvalidRequest, want):
                    Core(plugin).open(*args, fb, c)
        # A plugin with both kinds plays both.
        core = Core(both)
        core.open(*args, None, None)
        core.open(*args, None, ctx)

    def test_step_refusals(self):
        core = Core(rb.Plugin("both", "1", new_batch=lambda s, r: Recorder(s, r),
                              new_contextual_batch=lambda s, r: Recorder(s, r)))
        args = (3, 10, [0, 1], 1, rb.GAUSSIAN, 1.0, True, {}, 0, None)
        csid = core.open(*args, rb.Context(2, per_arm=True))
        fsid = core.open(*args, None)
        with self.assertRaisesRegex(InvalidRequest, "round 1: 0 context values, want 12 \\(2 replications, context "
                                                    "dim 2, per arm, 3 arms\\)"):
            core.step(csid, 1, NONE_I, NONE_F, False)
        with self.assertRaisesRegex(InvalidRequest, "11 context values, want 12"):
            core.step_contextual(csid, 1, NONE_I, NONE_F, np.zeros(11), False)
        with self.assertRaisesRegex(InvalidRequest, "round 1: 4 contexts in a context-free session"):
            core.step_contextual(fsid, 1, NONE_I, NONE_F, np.zeros(4), False)
        core.step_contextual(fsid, 1, NONE_I, NONE_F, NONE_F, False)  # an empty block is no context

    def test_plugin_validation(self):
        f = lambda s, r: None  # noqa: E731
        for kw, want in ((dict(new_contextual=f, new_contextual_batch=f), "at most one of new_contextual and "
                                                                           "new_contextual_batch"),
                         (dict(new=f, new_batch=f, new_contextual=f), "at most one of new and new_batch"),
                         (dict(), "set one of new, new_batch, new_contextual and new_contextual_batch")):
            with self.subTest(want=want):
                with self.assertRaisesRegex(ValueError, want):
                    rb.Plugin("p", "1", **kw).validate()
        for kw in (dict(new=f), dict(new_contextual=f), dict(new_contextual_batch=f, new=f)):
            rb.Plugin("p", "1", **kw).validate()

    def test_describe_flags(self):
        f = lambda s, r: None  # noqa: E731
        for kw, want in ((dict(new=f), (False, False)), (dict(new_batch=f, new_contextual=f), (True, False)),
                         (dict(new_contextual_batch=f), (True, True))):
            p = rb.Plugin("p", "1", **kw)
            with self.subTest(plugin=sorted(kw)):
                self.assertEqual(contextual_flags(p, CONTEXTUAL_VERSION), want)
                self.assertEqual(contextual_flags(p, 2), (False, False), "protocol 2 cannot carry contexts")
                d = describe_dict(p)
                self.assertEqual((d["ProtocolVersion"], d["Contextual"], d["ContextualOnly"]), (3,) + want)


class InProcessSocketTest(unittest.TestCase):
    """The step socket served in this process (REGRETBENCH_PY_FORK=0),
    so that the policy's view of each frame can be inspected."""

    def setUp(self):
        old = os.environ.get("REGRETBENCH_PY_FORK")
        os.environ["REGRETBENCH_PY_FORK"] = "0"
        self.addCleanup(lambda: os.environ.__setitem__("REGRETBENCH_PY_FORK", old) if old is not None
                        else os.environ.pop("REGRETBENCH_PY_FORK", None))

    def connect(self, core, sid):
        from regretbench.server import _StepSocket
        path = _StepSocket(core, sid).path
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(60)  # a failure bound, not a timing
        s.connect(path)
        self.addCleanup(s.close)
        return s

    @staticmethod
    def roundtrip(s, frame, contextual=True):
        s.sendall(frame)
        head = s.recv(4, socket.MSG_WAITALL)
        return frames.decode_response(s.recv(int.from_bytes(head, "little"), socket.MSG_WAITALL), contextual)

    def test_socket_plays_as_the_core(self):
        for ctx in (rb.Context(3), rb.Context(2, per_arm=True)):
            for n in (2, 3):  # an even and an odd count: the contexts' offset in the frame differs
                with self.subTest(context=str(ctx), n=n):
                    self.socket_plays_as_the_core(ctx, n)

    def socket_plays_as_the_core(self, ctx, n):
        pols = []
        plugin = rb.Plugin("rec", "1", diagnostics=["d"],
                           new_contextual_batch=lambda s, r: pols.append(DiagRecorder(s, r)) or pols[-1])
        k, reps = 3, list(range(10, 10 + n))
        rng = np.random.default_rng(8)
        xs = [contexts(rng, n, k, ctx) for _ in range(6)]
        prob_plan = [None, 1.0, np.linspace(0.1, 1, n), 0.0, 0.5, 1.0]

        core = Core(plugin)
        sid = core.open(k, 6, reps, 3, rb.GAUSSIAN, 1.0, True, {}, 0, None, ctx)
        s = self.connect(core, sid)
        by_socket, prev = [], []
        for t, x in enumerate(xs, 1):
            pols[0].probs = prob_plan[t - 1]
            status, arms, diag, probs, msg = self.roundtrip(
                s, frames.encode_request(t, prev, [0.25 * a for a in prev], want_diag=t % 2 == 0, contexts=x))
            self.assertEqual(status, frames.OK, msg)
            by_socket.append((arms.tolist(), probs.tolist(), diag.tolist()))
            prev = arms.tolist()
        log = pols[0].log
        for t, e in enumerate(log, 1):
            self.assertTrue(np.array_equal(e["contexts"], xs[t - 1]), "round %d" % t)
            self.assertFalse(e["owndata"], "round %d: the contexts are a view of the frame" % t)
            if t > 1:
                self.assertTrue(e["aligned"], "round %d: the contexts lie on 8 bytes" % t)
                self.assertTrue(np.array_equal(e["prev_contexts"], xs[t - 2]))
        self.assertEqual([p for _, p, _ in by_socket],
                         [[], [1.0] * n, np.linspace(0.1, 1, n).tolist(), [], [0.5] * n, [1.0] * n])
        self.assertEqual([d for _, _, d in by_socket], [[] if t % 2 else [[float(t)] * n] for t in range(1, 7)])
        # The same rounds played straight on a core answer the same.
        pols.clear()
        core2 = Core(plugin)
        sid2 = core2.open(k, 6, reps, 3, rb.GAUSSIAN, 1.0, True, {}, 0, None, ctx)
        prev = NONE_I
        for t, x in enumerate(xs, 1):
            pols[0].probs = prob_plan[t - 1]
            arms, _, probs = core2.step_contextual(sid2, t, prev, 0.25 * prev, x.reshape(-1), False)
            self.assertEqual((arms.tolist(), [] if probs is None else probs.tolist()), by_socket[t - 1][:2])
            prev = arms.copy()

    def test_socket_refusals(self):
        pols = []
        core = Core(batch_plugin(pols))
        x = np.zeros((2, 3))
        lying = bytearray(frames.encode_request(1, [], [], contexts=x))
        lying[4 + 13:4 + 17] = (5).to_bytes(4, "little")  # the right length, a wrong count
        for frame, want in ((frames.encode_request(1, [], []), "want bit 2 \\(contexts\\) set"),
                            (bytes(lying), "48 bytes of contexts for 5 values"),
                            (frames.encode_request(1, [], [], contexts=np.zeros(5)),
                             "5 context values, want 6"),
                            (frames.encode_request(1, [], [], arrivals=[], contexts=x), "bit 1 \\(arrivals\\) clear"),
                            (frames.encode_request(1, [], [], contexts=np.zeros(50)), "exceeds the limit")):
            with self.subTest(want=want):
                sid = core.open(2, 5, [0, 1], 1, rb.GAUSSIAN, 1.0, True, {}, 0, None, rb.Context(3))
                s = self.connect(core, sid)
                status, _, _, _, msg = self.roundtrip(s, frame)
                self.assertEqual(status, frames.INVALID)
                self.assertRegex(msg, want)
        # Contexts in a context-free session's frame: refused, named.
        free = Core(rb.Plugin("f", "1", new_batch=lambda s, r: Recorder(s, r)))
        sid = free.open(2, 5, [0, 1], 1, rb.GAUSSIAN, 1.0, True, {}, 0)
        s = self.connect(free, sid)
        status, _, _, _, msg = self.roundtrip(s, frames.encode_request(1, [], [], contexts=x), contextual=False)
        self.assertEqual(status, frames.INVALID)
        self.assertIn("contexts (flag bit 2) in a context-free session", msg)


class ReadmeExampleTest(unittest.TestCase):
    def test_readme_example_plays_as_linucbnp_without_bonus(self):
        # The README's contextual example runs, and, a ridge regression per
        # arm with lambda 1 as linucbnp's, plays as linucbnp with alpha 0.
        with open(os.path.join(helpers.PKG, "README.md")) as f:
            readme = f.read()
        blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
        src = next(b for b in blocks if "new_contextual_batch=" in b)
        ns = {"__name__": "readme_example"}
        real = rb.serve
        rb.serve = lambda p: ns.__setitem__("served", p)
        try:
            exec(compile(src, "README.md", "exec"), ns)
        finally:
            rb.serve = real
        lin = helpers.load_example("linucbnp")["served"]
        for ctx in (rb.Context(3), rb.Context(3, per_arm=True)):
            with self.subTest(context=str(ctx)):
                rng = np.random.default_rng(2)
                k, n = 4, 5
                theta = rng.normal(size=(k, 3))
                cores = [Core(ns["served"]), Core(lin)]
                sids = [cores[0].open(k, 60, list(range(n)), 1, rb.GAUSSIAN, 0.1, True, {}, 0, None, ctx),
                        cores[1].open(k, 60, list(range(n)), 1, rb.GAUSSIAN, 0.1, True, {"alpha": 0.0}, 0, None, ctx)]
                prev, prev_r = NONE_I, NONE_F
                for t in range(1, 61):
                    x = contexts(rng, n, k, ctx)
                    got = [c.step_contextual(sid, t, prev, prev_r, x.reshape(-1), False) for c, sid in zip(cores, sids)]
                    self.assertEqual(got[0][0].tolist(), got[1][0].tolist(), "round %d" % t)
                    self.assertEqual(got[0][2].tolist(), [1.0] * n)
                    prev = got[0][0].copy()
                    xa = x[np.arange(n), prev] if ctx.per_arm else x
                    prev_r = (xa * theta[prev]).sum(-1) + 0.1 * rng.normal(size=n)


ENV = dict(os.environ, REGRETBENCH_PLUGIN="7f3c1e9a-remax-bandit-policy", PLUGIN_PROTOCOL_VERSIONS="1,2,3",
           PYTHONPATH=helpers.PKG)


@unittest.skipIf(helpers.NO_GRPC, helpers.NO_GRPC)
class ServedContextualTest(unittest.TestCase):
    """The linucbnp example launched as bench launches it: a contextual
    session over the step socket, the Steps stream and unary Step."""

    def launch(self, env):
        p = subprocess.Popen([helpers.example("linucbnp")], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(lambda: (p.kill(), p.wait(), p.stdout.close(), p.stderr.close()))
        line = p.stdout.readline().decode()
        self.assertRegex(line, r"^1\|\d\|unix\|/.*\|grpc\n$", "handshake line")
        import grpc
        from regretbench._pb import policy_pb2_grpc
        return p, policy_pb2_grpc.PolicyStub(grpc.insecure_channel("unix:" + line.split("|")[3])), int(line[2])

    def test_contextual_session_over_every_transport(self):
        for fork in ("1", "0"):
            for per_arm in (False, True):
                with self.subTest(REGRETBENCH_PY_FORK=fork, per_arm=per_arm):
                    self.contextual_session(dict(ENV, REGRETBENCH_PY_FORK=fork), per_arm)

    def contextual_session(self, env, per_arm):
        import grpc
        from regretbench._pb import policy_pb2
        _, pol, version = self.launch(env)
        self.assertEqual(version, 3)
        d = pol.Describe(policy_pb2.DescribeRequest())
        self.assertEqual((d.name, d.protocol_version, d.contextual, d.contextual_only), ("linucbnp", 3, True, True))
        self.assertEqual([(q.name, q.default.float) for q in d.params], [("alpha", 1.0), ("lambda", 1.0)])
        k, dim, reps, rounds = 4, 3, [3, 0, 11], 12
        ctx = rb.Context(dim, per_arm)
        rng = np.random.default_rng(21)
        xs = [contexts(rng, len(reps), k, ctx) for _ in range(rounds)]
        theta = rng.normal(size=(k, dim))

        def rewards(t, arms):  # of round t's arms: linear in the context, no noise
            x = xs[t - 1]
            i = np.arange(len(arms))
            return (x[i, arms] * theta[arms]).sum(-1) if per_arm else (x * theta[arms]).sum(-1)

        req = dict(arms=k, horizon=50, replications=reps, seed=1, family="gaussian", noise_sd=0.1, noise_known=True,
                   context=policy_pb2.Context(dim=dim, per_arm=per_arm))
        # A context-free session is refused at Open, naming the plugin.
        with self.assertRaises(grpc.RpcError) as cm:
            pol.Open(policy_pb2.OpenRequest(**{k_: v for k_, v in req.items() if k_ != "context"}))
        self.assertEqual(cm.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("plugin linucbnp plays only contextual sessions", cm.exception.details())
        with self.assertRaises(grpc.RpcError) as cm:
            pol.Open(policy_pb2.OpenRequest(feedback=policy_pb2.Feedback(kind="delay", delay=1), **req))
        self.assertIn("with contexts: contextual sessions take immediate feedback only", cm.exception.details())

        # The step socket.
        o = pol.Open(policy_pb2.OpenRequest(step_socket=True, **req))
        self.assertTrue(o.step_socket)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(60)
        s.connect(o.step_socket)
        by_socket, prev, prev_r = [], [], []
        for t in range(1, rounds + 1):
            status, arms, _, probs, msg = InProcessSocketTest.roundtrip(
                s, frames.encode_request(t, prev, prev_r, contexts=xs[t - 1]))
            self.assertEqual(status, frames.OK, msg)
            self.assertEqual(probs.tolist(), [1.0] * len(reps), "a deterministic policy says 1")
            by_socket.append(arms.tolist())
            prev, prev_r = arms.tolist(), rewards(t, arms).tolist()
        s.close()
        pol.Close(policy_pb2.CloseRequest(session_id=o.session_id))

        def requests(sid):
            for t in range(1, rounds + 1):
                prev = by_socket[t - 2] if t > 1 else []
                yield policy_pb2.StepRequest(session_id=sid, round=t, prev_arms=prev,
                                             prev_rewards=rewards(t - 1, np.array(prev)).tolist() if t > 1 else [],
                                             contexts=xs[t - 1].reshape(-1).tolist())
        o2 = pol.Open(policy_pb2.OpenRequest(**req))
        stream = list(pol.Steps(requests(o2.session_id)))
        self.assertEqual([list(r.arms) for r in stream], by_socket)
        self.assertEqual({tuple(r.probs) for r in stream}, {(1.0,) * len(reps)})
        o3 = pol.Open(policy_pb2.OpenRequest(**req))
        self.assertEqual([list(pol.Step(r).arms) for r in requests(o3.session_id)], by_socket)
        # And as the policy in process.
        plugin = helpers.load_example("linucbnp")["served"]
        core = Core(plugin)
        sid = core.open(k, 50, reps, 1, rb.GAUSSIAN, 0.1, True, {}, 0, None, ctx)
        prev = NONE_I
        for t in range(1, rounds + 1):
            arms, _, _ = core.step_contextual(sid, t, prev, rewards(t - 1, prev) if t > 1 else NONE_F,
                                              xs[t - 1].reshape(-1), False)
            self.assertEqual(arms.tolist(), by_socket[t - 1], "round %d" % t)
            prev = arms.copy()
        self.assertGreater(len({tuple(a) for a in by_socket}), 1, "the policy's arms vary with the contexts")
        # A Step without contexts in a contextual session: refused.
        o4 = pol.Open(policy_pb2.OpenRequest(**req))
        with self.assertRaises(grpc.RpcError) as cm:
            pol.Step(policy_pb2.StepRequest(session_id=o4.session_id, round=1))
        self.assertEqual(cm.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("0 context values, want %d" % (len(reps) * ctx.width(k)), cm.exception.details())

    def test_protocol_2_connection_refuses_contexts(self):
        import grpc
        from regretbench._pb import policy_pb2
        _, pol, version = self.launch(dict(ENV, PLUGIN_PROTOCOL_VERSIONS="1,2"))
        self.assertEqual(version, 2)
        d = pol.Describe(policy_pb2.DescribeRequest())
        self.assertEqual((d.protocol_version, d.contextual, d.contextual_only), (2, False, False))
        with self.assertRaises(grpc.RpcError) as cm:
            pol.Open(policy_pb2.OpenRequest(arms=2, horizon=5, replications=[0], family="gaussian",
                                            context=policy_pb2.Context(dim=2)))
        self.assertEqual(cm.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("contexts (dim 2) need protocol version 3, this connection speaks 2", cm.exception.details())


if __name__ == "__main__":
    unittest.main()
