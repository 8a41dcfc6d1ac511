"""Sessions and rounds, independent of the transport (sdk/core.go)."""

import threading
import traceback

import numpy as np

from .frames import MAX_FRAME, NO_ARRIVALS
from .params import ParamError, resolve
from .policy import BatchStep, Replica, Session
from .rand import replica_rng

_umax = np.maximum.reduce


class InvalidRequest(Exception):
    """A request the host should not have sent (gRPC INVALID_ARGUMENT,
    step-socket status 2)."""


class PolicyFailed(Exception):
    """The policy raised or answered wrongly (gRPC INTERNAL, status 1)."""


def _describe_exc(e):
    return "".join(traceback.format_exception(type(e), e, e.__traceback__)).rstrip()


class ReplicaBatch:
    """Per-replication Policies driven as one BatchPolicy, in one loop."""

    def __init__(self, factory, spec, replicas, ndiag):
        self.spec = spec
        self.pols = []
        self.replicas = [r.index for r in replicas]
        for r in replicas:
            try:
                p = factory(spec, r)
            except Exception as e:
                raise PolicyFailed("replication %d: %s" % (r.index, e)) from e
            if p is None:
                raise PolicyFailed("replication %d: the factory returned None" % r.index)
            if ndiag and not callable(getattr(p, "diagnose", None)):
                raise PolicyFailed("the plugin declares diagnostics but its policy %s has no diagnose()"
                                   % type(p).__name__)
            self.pols.append(p)
        self.observe = [p.observe for p in self.pols]
        self.select = [p.select for p in self.pols]

    def step(self, s):
        t = s.round
        if self.spec.feedback is not None:
            arr = s.arrivals
            if len(arr):
                obs = self.observe
                for i, r, a, x in zip(arr.index.tolist(), arr.round.tolist(), arr.arm.tolist(),
                                      arr.reward.tolist()):
                    obs[i](r, a, x)
        elif len(s.prev_arms):
            for obs, a, r in zip(self.observe, s.prev_arms.tolist(), s.prev_rewards.tolist()):
                obs(t - 1, a, r)
        if t <= self.spec.init_rounds:
            return
        arms = np.array([sel(t) for sel in self.select])
        if arms.dtype.kind not in "iu":
            bad = next(i for i, a in enumerate(arms.tolist()) if not isinstance(a, int) or isinstance(a, bool))
            raise PolicyFailed("replication %d: select(%d) returned %r, want an int arm"
                               % (self.replicas[bad], t, arms[bad]))
        s.arms[:] = arms  # the core checks the range
        if s.diagnostics is not None:
            for i, p in enumerate(self.pols):
                s.diagnostics[:, i] = p.diagnose()


class ContextualReplicaBatch(ReplicaBatch):
    """Per-replication ContextualPolicies driven as one BatchPolicy."""

    def step(self, s):
        t = s.round
        if len(s.prev_arms):
            for obs, x, a, r in zip(self.observe, s.prev_contexts, s.prev_arms.tolist(), s.prev_rewards.tolist()):
                obs(t - 1, x, a, r)
        if t <= self.spec.init_rounds:
            return
        arms, probs = s.arms, s.probs
        for i, (sel, x) in enumerate(zip(self.select, s.contexts)):
            got = sel(t, x)
            arm, prob = got if isinstance(got, tuple) and len(got) == 2 else (got, 0.0)
            if not isinstance(arm, (int, np.integer)) or isinstance(arm, bool):
                raise PolicyFailed("replication %d: select(%d, x) returned %r, want an int arm or (arm, prob)"
                                   % (self.replicas[i], t, got))
            if not isinstance(prob, (int, float, np.integer, np.floating)) or isinstance(prob, bool):
                raise PolicyFailed("replication %d: select(%d, x) returned probability %r, want a float"
                                   % (self.replicas[i], t, prob))
            if not 0 <= arm < self.spec.arms:
                raise PolicyFailed("replication %d: select(%d, x) returned arm %d, want 0..%d"
                                   % (self.replicas[i], t, arm, self.spec.arms - 1))
            arms[i] = arm
            probs[i] = prob
        if s.diagnostics is not None:
            for i, p in enumerate(self.pols):
                s.diagnostics[:, i] = p.diagnose()


class CoreSession:
    __slots__ = ("spec", "n", "reps", "round", "delivered", "pol", "arms", "diag", "lock", "step", "init_rounds",
                 "ctx_shape", "ctx_len", "prev_ctx", "probs")

    def __init__(self, spec, reps, pol, ndiag):
        self.spec = spec
        self.n = len(reps)
        self.reps = reps
        self.round = 0
        # The rewards that have arrived (delayed feedback): n x round -
        # delivered rewards are pending, which bounds the arrivals.
        self.delivered = 0
        self.pol = pol
        self.arms = np.zeros(self.n, dtype=np.int32)
        self.diag = np.zeros((ndiag, self.n), dtype=np.float64)
        self.lock = threading.Lock()
        self.step = BatchStep(arrivals=NO_ARRIVALS)
        self.init_rounds = spec.init_rounds  # read twice a round: a property computes it
        # A contextual session's contexts: each round's n x width values,
        # seen as (n, dim) or (n, arms, dim); the previous round's, kept
        # as the SDK's copy; and the probabilities of the chosen arms.
        self.ctx_shape = self.ctx_len = self.prev_ctx = self.probs = None
        if spec.context is not None:
            self.ctx_shape = (self.n,) + spec.context.shape(spec.arms)
            self.ctx_len = self.n * spec.context.width(spec.arms)
            self.prev_ctx = np.zeros(self.ctx_shape, dtype=np.float64)
            self.probs = np.zeros(self.n, dtype=np.float64)

    def pending(self):
        """How many rewards have not arrived before the next round: every
        pull of the rounds answered, less those delivered."""
        return self.n * self.round - self.delivered

    def check_arrivals(self, t, arr):
        """Why the arrivals of round t are wrong, or None: no more than
        are pending, each of a replication of the batch and of an earlier
        round, an arm in range, ordered by index then round, none twice."""
        m = len(arr)
        if m > self.pending():
            return "%d arrivals, but only %d rewards are pending" % (m, self.pending())
        if m == 0:
            return None
        idx = arr.index.astype(np.int64)
        rnd = arr.round
        bad = (idx >= self.n) | (rnd < 1) | (rnd >= t) | (arr.arm < 0) | (arr.arm >= self.spec.arms)
        order = np.zeros(m, dtype=bool)
        if m > 1:
            order[1:] = (idx[1:] < idx[:-1]) | ((idx[1:] == idx[:-1]) & (rnd[1:] <= rnd[:-1]))
        wrong = np.flatnonzero(bad | order)
        if not len(wrong):
            return None
        j = int(wrong[0])
        i, r, a = int(idx[j]), int(rnd[j]), int(arr.arm[j])
        if i >= self.n:
            return "arrival %d: index %d, want 0..%d" % (j, i, self.n - 1)
        if r < 1 or r >= t:
            return "arrival %d: replication %d: pulled in round %d, want 1..%d" % (j, self.reps[i], r, t - 1)
        if a < 0 or a >= self.spec.arms:
            return "arrival %d: replication %d: arm %d out of range" % (j, self.reps[i], a)
        return ("arrival %d: (index %d, round %d) after (index %d, round %d): arrivals must be ordered by "
                "index, then round, without repeats" % (j, i, r, int(idx[j - 1]), int(rnd[j - 1])))


class Core:
    """The sessions of one plugin process."""

    def __init__(self, plugin):
        plugin.validate()
        self.p = plugin
        self.lock = threading.Lock()
        self.next = 0
        self.sessions = {}

    def open(self, arms, horizon, replications, seed, family, noise_sd, noise_known, params, init_pulls,
             feedback=None, context=None):
        """Opens a session and returns its id. feedback is a Feedback
        (delayed or batched feedback) or None (immediate); context a
        Context (a contextual session, protocol 3) or None."""
        if arms < 1 or horizon < 1 or not replications or init_pulls < 0:
            raise InvalidRequest("open: arms=%d horizon=%d replications=%d init_pulls=%d"
                                 % (arms, horizon, len(replications), init_pulls))
        name = self.p.name
        if context is not None:
            if not self.p.contextual:
                raise InvalidRequest("open: plugin %s plays no contextual sessions (it sets neither "
                                     "new_contextual nor new_contextual_batch), and this session has contexts (%s)"
                                     % (name, context))
            if context.dim < 1:
                raise InvalidRequest("open: context dim %d, want >= 1" % context.dim)
            if feedback is not None:
                raise InvalidRequest("open: delayed feedback (%s) with contexts: contextual sessions take "
                                     "immediate feedback only" % feedback)
            size = 8 * len(replications) * context.width(arms)
            if size > MAX_FRAME:
                raise InvalidRequest("open: a round's contexts (%d replications x %d values) take %d bytes, over "
                                     "the limit of %d" % (len(replications), context.width(arms), size, MAX_FRAME))
        elif not self.p.context_free:
            raise InvalidRequest("open: plugin %s plays only contextual sessions (it sets only new_contextual "
                                 "or new_contextual_batch), and this session has no context" % name)
        if feedback is not None:
            try:
                feedback.check()
            except ValueError as e:
                raise InvalidRequest("open: %s" % e) from None
        try:
            values = resolve(self.p.params, params)
        except ParamError as e:
            raise InvalidRequest("open: %s" % e) from None
        spec = Session(arms=arms, horizon=horizon, family=family, noise_sd=noise_sd,
                       noise_known=noise_known, init_pulls=init_pulls, seed=seed, params=values,
                       feedback=feedback, context=context)
        replicas = [Replica(int(i), replica_rng(seed, i)) for i in replications]
        ndiag = len(self.p.diagnostics)
        p = self.p
        try:
            if context is not None and p.new_contextual_batch is not None:
                pol = p.new_contextual_batch(spec, replicas)
                if pol is None:
                    raise PolicyFailed("new_contextual_batch returned None")
            elif context is not None:
                pol = ContextualReplicaBatch(p.new_contextual, spec, replicas, ndiag)
            elif p.new_batch is not None:
                pol = p.new_batch(spec, replicas)
                if pol is None:
                    raise PolicyFailed("new_batch returned None")
            else:
                pol = ReplicaBatch(p.new, spec, replicas, ndiag)
        except PolicyFailed as e:
            raise PolicyFailed("open: %s" % e) from e
        except Exception as e:
            raise PolicyFailed("open: %s" % e) from e
        s = CoreSession(spec, [int(i) for i in replications], pol, ndiag)
        with self.lock:
            self.next += 1
            sid = self.next
            self.sessions[sid] = s
        return sid

    def session(self, sid):
        s = self.sessions.get(sid)
        if s is None:
            raise InvalidRequest("unknown session %d" % sid)
        return s

    def step(self, sid, round, prev_arms, prev_rewards, want_diag, arms=None, diag=None, arrivals=None):
        """Plays round of session sid, a context-free one. prev_arms
        (int32) and prev_rewards (float64) are numpy arrays; arrivals an
        Arrivals or None (none), under delayed feedback only; arms and
        diag, when given, are the buffers to answer in (the step socket's
        output frame). Returns (arms, diagnostics or None), valid until the
        next step."""
        out, dbuf, _ = self.play(sid, round, prev_arms, prev_rewards, want_diag, arms, diag, arrivals)
        return out, dbuf

    def step_contextual(self, sid, round, prev_arms, prev_rewards, contexts, want_diag, arms=None, diag=None,
                        probs=None):
        """Plays round of contextual session sid: contexts is a float64
        numpy array of the round's n x width values (a view of the frame
        received, say); probs, when given, the buffer to answer the
        probabilities in. Returns (arms, diagnostics or None, probs or
        None: none said), valid until the next step."""
        return self.play(sid, round, prev_arms, prev_rewards, want_diag, arms, diag, None, contexts, probs)

    def play(self, sid, round, prev_arms, prev_rewards, want_diag, arms=None, diag=None, arrivals=None,
             contexts=None, probs=None):
        """step and step_contextual: (arms, diagnostics, probs)."""
        s = self.session(sid)
        with s.lock:
            spec = s.spec
            if round != s.round + 1 or round > spec.horizon:
                raise InvalidRequest("session %d: round %d requested after round %d (horizon %d)"
                                     % (sid, round, s.round, spec.horizon))
            if s.ctx_len is None:
                if contexts is not None and len(contexts):
                    raise InvalidRequest("session %d round %d: %d contexts in a context-free session"
                                         % (sid, round, len(contexts)))
            else:
                contexts = np.asarray(() if contexts is None else contexts, dtype=np.float64)  # no copy of float64
                if contexts.size != s.ctx_len:
                    raise InvalidRequest("session %d round %d: %d context values, want %d (%d replications, context "
                                         "%s, %d arms)" % (sid, round, contexts.size, s.ctx_len, s.n, spec.context,
                                                           spec.arms))
            want = 0 if round == 1 else s.n
            if arrivals is None:
                arrivals = NO_ARRIVALS
            if spec.feedback is not None:
                if len(prev_arms) != want or len(prev_rewards) != 0:
                    raise InvalidRequest("session %d round %d (feedback %s): got %d arms and %d rewards, "
                                         "want %d arms and no rewards"
                                         % (sid, round, spec.feedback, len(prev_arms), len(prev_rewards), want))
                why = s.check_arrivals(round, arrivals)
                if why is not None:
                    raise InvalidRequest("session %d round %d: %s" % (sid, round, why))
            else:
                if len(prev_arms) != want or len(prev_rewards) != want:
                    raise InvalidRequest("session %d round %d: got %d arms and %d rewards, want %d each"
                                         % (sid, round, len(prev_arms), len(prev_rewards), want))
                if arrivals is not NO_ARRIVALS and len(arrivals):
                    raise InvalidRequest("session %d round %d: %d arrivals under immediate feedback"
                                         % (sid, round, len(arrivals)))
            # Unsigned, a negative arm is huge: one reduction checks both ends.
            if want and _umax(prev_arms.view(np.uint32)) >= spec.arms:
                i = int(np.flatnonzero((prev_arms < 0) | (prev_arms >= spec.arms))[0])
                raise InvalidRequest("session %d round %d: replication %d: arm %d out of range"
                                     % (sid, round, i, prev_arms[i]))
            st = s.step
            st.round = round
            st.prev_arms = prev_arms
            st.prev_rewards = prev_rewards
            st.arrivals = arrivals
            buf = st.arms = s.arms if arms is None else arms
            st.diagnostics = dbuf = None
            if want_diag and len(self.p.diagnostics):
                st.diagnostics = dbuf = s.diag if diag is None else diag
            pbuf = ctx = None
            if s.ctx_len is not None:
                st.contexts = ctx = contexts.reshape(s.ctx_shape)  # a view
                st.prev_contexts = s.prev_ctx if round > 1 else s.prev_ctx[:0]
                pbuf = st.probs = s.probs if probs is None else probs
                pbuf[:] = 0
            try:
                s.pol.step(st)
            except PolicyFailed:
                raise
            except Exception as e:
                raise PolicyFailed("policy raised %s" % _describe_exc(e)) from e
            out = st.arms
            if out is not buf:  # the policy bound st.arms to an array of its own
                out = np.asarray(out)
                if out.shape != buf.shape:
                    raise PolicyFailed("the policy returned %s arms for %d replications" % (out.shape, s.n))
                if out.dtype.kind not in "iu":
                    raise PolicyFailed("the policy returned arms of type %s, want integers" % out.dtype)
                bad = np.flatnonzero((out < 0) | (out >= spec.arms))
                if round > s.init_rounds and len(bad):
                    raise PolicyFailed("replication %d: the policy returned arm %d, want 0..%d"
                                       % (s.reps[bad[0]], out[bad[0]], spec.arms - 1))
                buf[:] = out
                out = buf
            if round <= s.init_rounds:
                out[:] = (round - 1) % spec.arms
            elif _umax(out.view(np.uint32)) >= spec.arms:
                i = int(np.flatnonzero((out < 0) | (out >= spec.arms))[0])
                raise PolicyFailed("replication %d: the policy returned arm %d, want 0..%d"
                                   % (s.reps[i], out[i], spec.arms - 1))
            if dbuf is not None and st.diagnostics is not dbuf:
                # The policy bound st.diagnostics to an array of its own:
                # answer with its values, copied into the buffer the step
                # socket sends (which it did not fill), as the arms.
                d = st.diagnostics
                if d is None:
                    raise PolicyFailed("the policy set st.diagnostics to None; fill it, or assign an array of "
                                       "shape (%d, %d): diagnostics by replication" % dbuf.shape)
                d = np.asarray(d)
                if d.shape != dbuf.shape:
                    raise PolicyFailed("the policy returned diagnostics of shape %s, want (%d, %d): %d diagnostics "
                                       "of %d replications" % ((d.shape,) + dbuf.shape + dbuf.shape))
                if d.dtype.kind not in "fiu":
                    raise PolicyFailed("the policy returned diagnostics of type %s, want numbers" % d.dtype)
                dbuf[:] = d
            if pbuf is not None:
                pbuf = self._probs(s, round, st.probs, pbuf)
                np.copyto(s.prev_ctx, ctx)
                st.contexts = st.prev_contexts = None  # no view of a frame outlives its round
            s.round = round
            if arrivals is not NO_ARRIVALS:
                s.delivered += len(arrivals)
            return out, dbuf, pbuf

    @staticmethod
    def _probs(s, round, got, pbuf):
        """The probabilities to answer with, checked, in pbuf; None when
        none is said (all 0, and always in the host-forced rounds)."""
        if round <= s.init_rounds:
            pbuf[:] = 0
            return None
        if got is not pbuf:  # the policy bound st.probs to an array of its own
            if got is None:
                raise PolicyFailed("the policy set st.probs to None; fill it, or assign an array of shape (%d,)"
                                   % s.n)
            got = np.asarray(got)
            if got.shape != pbuf.shape:
                raise PolicyFailed("the policy returned probabilities of shape %s, want (%d,): one per replication"
                                   % (got.shape, s.n))
            if got.dtype.kind not in "fiu":
                raise PolicyFailed("the policy returned probabilities of type %s, want floats" % got.dtype)
            pbuf[:] = got
        said = pbuf != 0
        if not said.any():
            return None
        bad = np.flatnonzero(~((pbuf > 0) & (pbuf <= 1)) & said)  # NaN is said and not in (0, 1]
        if len(bad):
            i = int(bad[0])
            raise PolicyFailed("replication %d: the policy gave its arm probability %r, want a value in (0, 1], "
                               "or 0 for not said" % (s.reps[i], float(pbuf[i])))
        return pbuf

    def close(self, sid):
        with self.lock:
            if self.sessions.pop(sid, None) is None:
                raise InvalidRequest("unknown session %d" % sid)
