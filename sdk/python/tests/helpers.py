"""Shared by the tests: the package on sys.path, and what is installed."""

import atexit
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)                       # sdk/python
ROOT = os.path.normpath(os.path.join(PKG, "..", ".."))
if PKG not in sys.path:
    sys.path.insert(0, PKG)

# The plugins the tests start make their socket directories under TMPDIR,
# and some are SIGKILLed, which no cleanup of theirs survives (bench gives
# each plugin a private TMPDIR that it removes; these tests start plugins
# without bench): point TMPDIR at a directory of this run's own, removed
# when the run ends, so that nothing is left in the machine's.
RUN_TMP = tempfile.mkdtemp(prefix="regretbench-pytest-")
os.environ["TMPDIR"] = RUN_TMP
tempfile.tempdir = None
atexit.register(shutil.rmtree, RUN_TMP, True)

# NO_GRPC says why the tests that need grpc are skipped: "" when grpc
# imports, else the reason (unittest.skipIf(NO_GRPC, NO_GRPC)).
try:
    import grpc  # noqa: F401
    NO_GRPC = ""
except ImportError as e:
    NO_GRPC = "%s cannot import grpc (%s): install Debian's python3-grpcio" % (sys.executable, e)


def example(name):
    """The path of examples/python/bench-plugin-NAME."""
    return os.path.join(ROOT, "examples", "python", "bench-plugin-" + name)


def load_example(name):
    """The example's module namespace, without serving (rb.serve is
    replaced by a recorder): its Plugin is ns['served']."""
    import regretbench as rb
    with open(example(name)) as f:
        src = f.read()
    ns = {"__name__": "example_" + name, "__file__": example(name)}
    real = rb.serve
    rb.serve = lambda p: ns.__setitem__("served", p)
    try:
        exec(compile(src, example(name), "exec"), ns)
    finally:
        rb.serve = real
    return ns
