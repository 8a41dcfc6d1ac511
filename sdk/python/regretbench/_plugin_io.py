"""The process's standard streams when run by bench; no dependencies, so
that it works before anything else is imported."""

import os
import sys

_real_stdout = None  # the descriptor of the handshake, once protected


def protect_stdout():
    """Points descriptor 1 at stderr and keeps the real stdout for the
    handshake only, so that no print can corrupt what bench reads there.
    Importing the package does this when run by bench."""
    global _real_stdout
    if _real_stdout is not None:
        return
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    _real_stdout = os.dup(1)
    os.dup2(2, 1)


def real_stdout():
    """The descriptor of the real stdout once protected, else None."""
    return _real_stdout


def say(msg):
    """Writes a line to stderr, ignoring a closed or broken stderr: bench
    may be gone, and nothing must stop what comes next (exiting)."""
    try:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()
    except Exception:  # noqa: BLE001 - BrokenPipeError, ValueError, ...
        pass


def missing(what, packages, err):
    """Reports a missing module: naming the interpreter, which is what a
    user with several Pythons needs to know. Run by bench, it exits;
    otherwise it raises ImportError."""
    msg = ("regretbench needs %s, which %s cannot import (%s): install Debian's %s, or run the plugin "
           "with a Python that has numpy, grpcio and protobuf (its first line names the interpreter)"
           % (what, sys.executable, err, packages))
    if _real_stdout is not None:
        say("%s: %s" % (os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "regretbench", msg))
        sys.exit(1)
    raise ImportError(msg) from err
