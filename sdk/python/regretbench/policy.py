"""What a plugin author implements, as sdk/policy.go and sdk/plugin.go."""

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from .params import Param, validate_params

GAUSSIAN, BERNOULLI = "gaussian", "bernoulli"


class PolicyError(Exception):
    """A policy refusing a session (raised from new / new_batch) or failing."""


@dataclass
class Session:
    """Everything a policy may know about the problem it faces.

    arms K (arms are 0..K-1), horizon T, family ("gaussian" or
    "bernoulli"), noise_sd (meaningful when noise_known), init_pulls
    (rounds 1..K*init_pulls are forced by the host: arm (t-1) mod K),
    seed (the policy seed, never the scenario's) and params (every
    declared parameter, defaults filled in).
    """
    arms: int
    horizon: int
    family: str = GAUSSIAN
    noise_sd: float = 0.0
    noise_known: bool = False
    init_pulls: int = 0
    seed: int = 0
    params: Dict[str, Any] = field(default_factory=dict)

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
    the arm actually pulled. A policy that declares diagnostics also
    implements diagnose(), returning one float per declared diagnostic for
    the decision of the last select.
    """

    def select(self, t):
        raise NotImplementedError

    def observe(self, t, arm, reward):
        raise NotImplementedError


class BatchStep:
    """One round of every replication of a batch session.

    round: the round t (1-based) whose arms are wanted.
    prev_arms (int32) and prev_rewards (float64): numpy arrays of round
        t-1, one per replication; empty when t == 1. They are views of the
        SDK's receive buffer: copy what you keep beyond this call.
    arms: int32 array to fill with the arm of every replication. During
        the host-forced initial rounds the SDK overwrites it.
    diagnostics: None, or a float64 array [d, i] to fill: diagnostic d (in
        Plugin.diagnostics order) of replication i.
    """
    __slots__ = ("round", "prev_arms", "prev_rewards", "arms", "diagnostics")

    def __init__(self, round=0, prev_arms=None, prev_rewards=None, arms=None, diagnostics=None):
        self.round = round
        self.prev_arms = prev_arms
        self.prev_rewards = prev_rewards
        self.arms = arms
        self.diagnostics = diagnostics


class BatchPolicy:
    """The vectorised interface: step(s) once per round, in round order,
    over numpy arrays holding every replication of the batch."""

    def step(self, s):
        raise NotImplementedError


@dataclass
class Plugin:
    """A policy plugin: what Describe reports and how to build policies.

    Exactly one of new(session, replica) -> Policy and
    new_batch(session, replicas) -> BatchPolicy is set. name is short (the
    executable is bench-plugin-NAME); version is recorded in results.
    """
    name: str
    version: str
    params: List[Param] = field(default_factory=list)
    diagnostics: List[str] = field(default_factory=list)
    new: Optional[Callable] = None
    new_batch: Optional[Callable] = None

    def validate(self):
        if not self.name:
            raise ValueError("regretbench: Plugin.name is empty")
        if (self.new is None) == (self.new_batch is None):
            raise ValueError("regretbench: plugin %s: set exactly one of new and new_batch" % self.name)
        try:
            validate_params(self.params)
        except ValueError as e:
            raise ValueError("regretbench: plugin %s: %s" % (self.name, e)) from None
