"""What a plugin author implements, as sdk/policy.go and sdk/plugin.go."""

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from .params import Param, validate_params

GAUSSIAN, BERNOULLI = "gaussian", "bernoulli"


class PolicyError(Exception):
    """A policy refusing a session (raised from new / new_batch) or failing."""


DELAY, GEOMETRIC, BATCH = "delay", "geometric", "batch"


@dataclass(frozen=True)
class Feedback:
    """How rewards arrive under delayed or batched feedback (protocol 2),
    as the scenario declares it, as Go's sdk.Feedback. A reward of round t
    with delay d arrives at the start of round t+d+1; rewards due after
    the horizon never arrive.

    kind "delay": every reward `delay` rounds late; "geometric": random
    delays, geometric on 0, 1, 2, ... with mean `mean`; "batch": the
    rewards of rounds ((k-1)B, kB] arrive at the start of round kB+1,
    B = `batch`. Session.feedback is None under immediate feedback.
    """
    kind: str
    delay: int = 0
    mean: float = 0.0
    batch: int = 0

    def check(self):
        """Raises ValueError for a mode the SDK cannot play."""
        if self.kind == DELAY:
            if self.delay < 0:
                raise ValueError("feedback delay %d, want >= 0" % self.delay)
        elif self.kind == GEOMETRIC:
            if not (self.mean >= 0) or math.isinf(self.mean):
                raise ValueError("feedback geometric mean %r, want a finite value >= 0" % self.mean)
        elif self.kind == BATCH:
            if self.batch < 1:
                raise ValueError("feedback batch %d, want >= 1" % self.batch)
        else:
            raise ValueError("unknown feedback kind %r (want delay, geometric or batch)" % self.kind)

    def __str__(self):
        if self.kind == DELAY:
            return "delay %d" % self.delay
        if self.kind == GEOMETRIC:
            return "geometric mean %r" % self.mean
        if self.kind == BATCH:
            return "batch %d" % self.batch
        return "unknown feedback %r" % self.kind


@dataclass(frozen=True)
class Context:
    """The shape of a contextual session's contexts (protocol 3), as Go's
    sdk.ContextShape: each round, each replication sees dim features
    shared by every arm, or with per_arm dim features for each arm (arm
    a's features are row a of the replication's (arms, dim) block)."""
    dim: int
    per_arm: bool = False

    def width(self, arms):
        """The number of values of one replication's context in one round:
        dim, or arms x dim with per-arm features."""
        return arms * self.dim if self.per_arm else self.dim

    def shape(self, arms):
        """The shape of one replication's context: (dim,) or (arms, dim)."""
        return (arms, self.dim) if self.per_arm else (self.dim,)

    def __str__(self):
        return "dim %d%s" % (self.dim, ", per arm" if self.per_arm else "")


@dataclass
class Session:
    """Everything a policy may know about the problem it faces.

    arms K (arms are 0..K-1), horizon T, family ("gaussian" or
    "bernoulli"), noise_sd (meaningful when noise_known), init_pulls
    (rounds 1..K*init_pulls are forced by the host: arm (t-1) mod K),
    seed (the policy seed, never the scenario's), params (every
    declared parameter, defaults filled in), feedback (a Feedback under
    delayed or batched feedback, protocol 2; None: immediate) and context
    (a Context in a contextual session, protocol 3; None: context-free).
    """
    arms: int
    horizon: int
    family: str = GAUSSIAN
    noise_sd: float = 0.0
    noise_known: bool = False
    init_pulls: int = 0
    seed: int = 0
    params: Dict[str, Any] = field(default_factory=dict)
    feedback: Optional[Feedback] = None
    context: Optional[Context] = None

    @property
    def contextual(self):
        """Whether each round brings contexts (Session.context set)."""
        return self.context is not None

    @property
    def delayed(self):
        """Whether rewards come as arrivals (any declared feedback mode,
        {delay: 0} included) rather than immediately."""
        return self.feedback is not None

    @property
    def init_rounds(self):
        """The number of host-forced rounds at the start of a run."""
        return self.arms * self.init_pulls

    def reward_sd(self):
        """The reward sd a policy with a Gaussian posterior may use.

        For gaussian rewards the declared noise_sd, which must be known to
        the learner, positive and finite; for bernoulli 0.5, the largest sd
        of a {0, 1} reward. Raises PolicyError otherwise, as Go's
        Session.RewardSD: call it instead of reading noise_sd, so that no
        policy can use an undeclared sd.
        """
        if self.family == GAUSSIAN:
            if not self.noise_known:
                raise PolicyError("gaussian rewards need a known noise sd "
                                  "(the scenario declares noise_known: false)")
            sd = self.noise_sd
            if not (sd > 0) or math.isinf(sd):
                raise PolicyError("gaussian noise sd %r: want a finite value > 0" % sd)
            return sd
        if self.family == BERNOULLI:
            return 0.5
        raise PolicyError("unsupported reward family %r" % self.family)


@dataclass
class Replica:
    """One replication: its global index (the same for every batch split)
    and its own numpy Generator, seeded from (seed, index) only."""
    index: int
    rng: Any


class Policy:
    """The per-replication interface. The SDK makes one per replication.

    For every round t = 1..T the SDK calls select(t), unless t is one of
    the host-forced initial rounds, and then observe(t, arm, reward) with
    the arm actually pulled.

    Under delayed or batched feedback (Session.feedback set) observe(t,
    arm, reward) is called when the reward of round t arrives, before
    select of the current round, in the order of the pulled rounds;
    rewards due after the horizon never arrive. Forced rounds' rewards
    arrive the same way. With {delay: 0} the calls are exactly those of
    immediate feedback.

    A policy that declares diagnostics also
    implements diagnose(), returning one float per declared diagnostic for
    the decision of the last select.
    """

    def select(self, t):
        raise NotImplementedError

    def observe(self, t, arm, reward):
        raise NotImplementedError


class ContextualPolicy:
    """The per-replication interface of a contextual policy
    (Plugin.new_contextual), as Go's sdk.ContextualPolicy. The SDK makes
    one per replication of a contextual session.

    For every round t = 1..T the SDK calls select(t, x) with round t's
    context x, unless t is a host-forced initial round, and then, once the
    host sends the reward with the next round, observe(t, x, arm, reward)
    with the same context, the arm actually pulled and its reward. x is a
    float64 numpy array of shape (dim,), or (arms, dim) with per-arm
    features (Session.context), a view of the SDK's buffer: copy what you
    keep. select returns the arm, or (arm, prob): prob the probability
    the policy gave that arm, in (0, 1], or 0 for "not said" (a
    deterministic policy says 1).
    """

    def select(self, t, x):
        raise NotImplementedError

    def observe(self, t, x, arm, reward):
        raise NotImplementedError


class BatchStep:
    """One round of every replication of a batch session.

    round: the round t (1-based) whose arms are wanted.
    prev_arms (int32) and prev_rewards (float64): numpy arrays of round
        t-1, one per replication; empty when t == 1. They are views of the
        SDK's receive buffer: copy what you keep beyond this call. Under
        delayed feedback prev_arms is still the arm pulled in round t-1
        (forced or not) but prev_rewards is empty: rewards come in
        arrivals.
    arrivals: under delayed feedback (Session.feedback set), the rewards
        arriving at the start of round t: an object with numpy arrays
        index (the replication's position in the batch), round (the round
        pulled in), arm and reward, ordered by index, then round; len()
        is their count. Empty under immediate feedback. Views too.
    arms: int32 array to fill with the arm of every replication. During
        the host-forced initial rounds the SDK overwrites it.
    diagnostics: None, or a float64 array [d, i] to fill: diagnostic d (in
        Plugin.diagnostics order) of replication i. A policy may also
        assign an array of its own of that shape, as it may to arms; the
        SDK copies it.

    In a contextual session (Session.context set, Plugin.new_contextual_batch),
    and None in a context-free one:
    contexts: float64 array of round t's contexts, shape (n, dim), or
        (n, arms, dim) with per-arm features: row i is replication i's.
        A view of the SDK's receive buffer (the step socket's frame):
        copy what you keep beyond this call.
    prev_contexts: round t-1's contexts, of the same shape; (0, ...) when
        t == 1. With prev_arms and prev_rewards, what a policy updates on.
        The SDK's copy, valid during this call.
    probs: float64 array of n zeros to fill with the probability the
        policy gave each chosen arm, in (0, 1], or 0 where it does not say
        (a deterministic policy says 1). A policy may also assign an array
        of its own of shape (n,); the SDK checks the values. Zeroed by the
        SDK in the host-forced initial rounds.
    """
    __slots__ = ("round", "prev_arms", "prev_rewards", "arrivals", "arms", "diagnostics", "contexts",
                 "prev_contexts", "probs")

    def __init__(self, round=0, prev_arms=None, prev_rewards=None, arms=None, diagnostics=None, arrivals=None,
                 contexts=None, prev_contexts=None, probs=None):
        self.round = round
        self.arrivals = arrivals
        self.prev_arms = prev_arms
        self.prev_rewards = prev_rewards
        self.arms = arms
        self.diagnostics = diagnostics
        self.contexts = contexts
        self.prev_contexts = prev_contexts
        self.probs = probs


class BatchPolicy:
    """The vectorised interface: step(s) once per round, in round order,
    over numpy arrays holding every replication of the batch. In a
    contextual session (Plugin.new_contextual_batch) s also carries the
    round's contexts, the previous round's, and probs to fill."""

    def step(self, s):
        raise NotImplementedError


@dataclass
class Plugin:
    """A policy plugin: what Describe reports and how to build policies.

    For context-free scenarios at most one of new(session, replica) ->
    Policy and new_batch(session, replicas) -> BatchPolicy is set; for
    contextual ones (protocol 3) at most one of new_contextual(session,
    replica) -> ContextualPolicy and new_contextual_batch(session,
    replicas) -> BatchPolicy (reading BatchStep.contexts); at least one of
    the four. A plugin with only contextual factories plays only
    contextual scenarios. name is short (the executable is
    bench-plugin-NAME); version is recorded in results.
    """
    name: str
    version: str
    params: List[Param] = field(default_factory=list)
    diagnostics: List[str] = field(default_factory=list)
    new: Optional[Callable] = None
    new_batch: Optional[Callable] = None
    new_contextual: Optional[Callable] = None
    new_contextual_batch: Optional[Callable] = None

    @property
    def contextual(self):
        """Whether the plugin plays contextual sessions."""
        return self.new_contextual is not None or self.new_contextual_batch is not None

    @property
    def context_free(self):
        """Whether the plugin plays context-free sessions."""
        return self.new is not None or self.new_batch is not None

    def validate(self):
        if not self.name:
            raise ValueError("regretbench: Plugin.name is empty")
        if self.new is not None and self.new_batch is not None:
            raise ValueError("regretbench: plugin %s: set at most one of new and new_batch" % self.name)
        if self.new_contextual is not None and self.new_contextual_batch is not None:
            raise ValueError("regretbench: plugin %s: set at most one of new_contextual and new_contextual_batch"
                             % self.name)
        if not self.context_free and not self.contextual:
            raise ValueError("regretbench: plugin %s: set one of new, new_batch, new_contextual and "
                             "new_contextual_batch" % self.name)
        try:
            validate_params(self.params)
        except ValueError as e:
            raise ValueError("regretbench: plugin %s: %s" % (self.name, e)) from None
