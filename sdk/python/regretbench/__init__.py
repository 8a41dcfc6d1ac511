"""regretbench: write bandit policy plugins for bench in Python.

    import regretbench as rb

    class Greedy(rb.Policy):
        def __init__(self, s, r): ...
        def select(self, t): ...
        def observe(self, t, arm, reward): ...

    rb.serve(rb.Plugin("greedy", "1.0.0", new=Greedy))

The API mirrors the Go SDK (github.com/regretbench/regretbench/sdk):
Plugin, Param, Session (with reward_sd()), a per-replication Policy, a
vectorised BatchPolicy over numpy arrays, and serve(). It speaks
protocols 1, 2 (delayed and batched feedback: Session.feedback, observe
on arrival, BatchStep.arrivals) and 3 (contexts: Session.context,
Plugin.new_contextual with a ContextualPolicy, or
Plugin.new_contextual_batch with BatchStep.contexts, prev_contexts and
probs, the batch's contexts as one numpy array). serve() speaks
go-plugin's handshake, health, controller and stdio services and the
regretbench Policy service, plays rounds on the step socket
(docs/step-socket.md) or the Steps stream, exits when bench dies, and keeps
stdout for the handshake alone.

Randomness: Replica.rng is a numpy Generator seeded from (seed,
replication index) only; KeyedDraws gives vectorised draws keyed by (seed,
replication, round). Neither is the Go SDK's stream.

Needs numpy, grpcio and protobuf (Debian: python3-numpy, python3-grpcio,
python3-protobuf).

The names this module exports are pinned in sdk/python/api.txt
(tests/test_api.py), as the Go SDK's are in sdk/testdata/api.txt. The
rules that check parameter values (regretbench.params: coerce, resolve)
are the SDK's own, not a policy's API.
"""

import os as _os

__version__ = "0.1.0"

from . import _plugin_io

if _os.environ.get("REGRETBENCH_PLUGIN"):
    # Run by bench: from here on a stray print goes to stderr, never into
    # the handshake on stdout.
    _plugin_io.protect_stdout()

try:
    import numpy as _np  # noqa: F401
except ImportError as _e:
    _plugin_io.missing("numpy", "python3-numpy", _e)

from .params import (BOOL, FLOAT, INT, STRING, Bound, Param, ParamError,  # noqa: E402
                     exclusive, inclusive)
from .frames import Arrivals  # noqa: E402
from .policy import (BATCH, BERNOULLI, DELAY, GAUSSIAN, GEOMETRIC, BatchPolicy, BatchStep,  # noqa: E402
                     Context, ContextualPolicy, Feedback, Plugin, Policy, PolicyError, Replica, Session)
from .rand import KeyedDraws, replica_rng  # noqa: E402
from .server import SDK_VERSION, serve  # noqa: E402

__all__ = ["BOOL", "FLOAT", "INT", "STRING", "Bound", "Param", "ParamError", "exclusive",
           "inclusive", "BERNOULLI", "GAUSSIAN", "BatchPolicy", "BatchStep", "Plugin", "Policy",
           "PolicyError", "Arrivals", "Feedback", "DELAY", "GEOMETRIC", "BATCH", "Replica", "Session", "KeyedDraws", "replica_rng", "SDK_VERSION", "serve",
           "Context", "ContextualPolicy"]
