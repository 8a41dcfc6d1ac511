"""Serving a Plugin to bench: go-plugin's handshake and services, the
Policy service, and the step socket (docs/step-socket.md)."""

import atexit
import gc
import json
import os
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
import warnings

import numpy as np

from . import _plugin_io, frames
from ._plugin_io import protect_stdout, say as _say
from .core import Core, InvalidRequest, PolicyFailed
from .params import BOOL, FLOAT, INT
from .policy import Context, Feedback

MAGIC_COOKIE_KEY = "REGRETBENCH_PLUGIN"
MAGIC_COOKIE_VALUE = "7f3c1e9a-remax-bandit-policy"  # internal/wire/wire.go
PROTOCOL_VERSION = 3          # the newest regretbench policy protocol spoken
PROTOCOL_VERSIONS = (1, 2, 3)  # every version served (2: delayed feedback; 3: contexts)
DELAYED_FEEDBACK_VERSION = 2
CONTEXTUAL_VERSION = 3
CORE_PROTOCOL_VERSION = 1  # go-plugin's handshake version
SDK_VERSION = "regretbench-python/0.1.0"
STEP_ACCEPT_TIMEOUT = 60.0  # seconds an offered step socket waits for bench
PARENT_POLL = 0.25          # seconds between checks that bench is alive
MAX_MESSAGE = 256 << 20     # gRPC message limit, as the Go SDK's

def fork_sessions():
    """Whether each session's step socket is served by a process of its
    own (forked at Open): the default on Linux, where bench's sessions of
    one policy then run in parallel instead of taking turns on the GIL.
    REGRETBENCH_PY_FORK=0 keeps them in threads of the one process."""
    return hasattr(os, "fork") and os.environ.get("REGRETBENCH_PY_FORK", "1") != "0"


_cleanup_dirs = set()


def _fail(name, msg, code=1):
    _say("bench-plugin-%s: %s" % (name, msg))
    sys.exit(code)


def _remove_dirs():
    """Removes the socket directories this process made (atexit: an
    uncaught exception or sys.exit after the socket directory was made)."""
    for d in list(_cleanup_dirs):
        shutil.rmtree(d, ignore_errors=True)


def _exit_now(code):
    _remove_dirs()
    os._exit(code)


def _on_term(signum, frame):
    _exit_now(128 + signum)


def watch_parent(name, ppid, every=PARENT_POLL):
    """Exits the process (code 3) when its parent changes: bench died
    without stopping us (go-plugin does not tie a plugin's life to its
    host's). Runs in a daemon thread; nothing it does can raise."""
    while True:
        time.sleep(every)
        if os.getppid() != ppid:
            _say("bench-plugin-%s: host process %d is gone, exiting" % (name, ppid))
            _exit_now(3)


def negotiate(offered):
    """The protocol version to speak: the highest of PROTOCOL_VERSIONS
    in offered, the PLUGIN_PROTOCOL_VERSIONS list of the host ("1,2,3");
    absent or empty (an old host), version 1. Raises ValueError, naming
    both lists, when there is no common version."""
    if offered is None or not offered.strip():
        return 1
    got = []
    for v in offered.split(","):
        try:
            got.append(int(v.strip()))
        except ValueError:
            continue  # go-plugin skips what is not a number too
    common = [v for v in PROTOCOL_VERSIONS if v in got]
    if not common:
        raise ValueError("the host speaks protocol versions %s; this plugin speaks %s"
                         % (offered, ",".join(map(str, PROTOCOL_VERSIONS))))
    return max(common)


def describe_dict(p, version=PROTOCOL_VERSION):
    """Describe's answer as bench's `describe` JSON (the Go SDK's Describe answer)."""
    def bound(b):
        return None if b is None else {"Value": b.value, "Exclusive": b.exclusive}
    return {
        "Name": p.name, "Version": p.version, "ProtocolVersion": version,
        "Params": [{"Name": d.name, "Type": d.typ, "Default": d.default, "Doc": d.doc,
                    "Min": bound(d.min), "Max": bound(d.max), "Allowed": list(d.allowed) or None}
                   for d in p.params] or None,
        "Diagnostics": list(p.diagnostics) or None, "StepStream": True, "SDK": SDK_VERSION,
        "Contextual": contextual_flags(p, version)[0], "ContextualOnly": contextual_flags(p, version)[1],
    }


def contextual_flags(p, version):
    """Describe's (contextual, contextual_only) for plugin p on a
    connection of protocol version: both False below version 3, which
    cannot carry contexts."""
    if version < CONTEXTUAL_VERSION or not p.contextual:
        return False, False
    return True, not p.context_free


def _set_value(msg, typ, v):
    """Fills a policy_pb2.Value with v of parameter type typ."""
    if typ == FLOAT:
        msg.float = float(v)
    elif typ == INT:
        msg.int = int(v)
    elif typ == BOOL:
        msg.bool = bool(v)
    else:
        msg.string = str(v)


def _from_value(v):
    kind = v.WhichOneof("kind")
    return None if kind is None else getattr(v, kind)


class _StepSocket:
    """One session's step socket: the frames of docs/step-socket.md, read
    with recv_into into a preallocated buffer and answered in place: the
    policy's arms are written straight into the output frame."""

    def __init__(self, core, sid):
        self.core, self.sid = core, sid
        self.dir = tempfile.mkdtemp(prefix="regretbench-")
        _cleanup_dirs.add(self.dir)
        self.path = os.path.join(self.dir, "step.sock")
        self.ln = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.ln.bind(self.path)
            self.ln.listen(1)
        except OSError:
            self._remove()
            raise
        if not fork_sessions():
            threading.Thread(target=self._run, name="step-%d" % sid, daemon=True).start()
            return
        ppid = os.getpid()
        with warnings.catch_warnings():
            # Python 3.12 warns of fork() in a threaded process: the child
            # runs only this session's policy, never gRPC, and exits.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            self._child(ppid)  # never returns
        self.ln.close()  # the child's now, and the directory too
        _cleanup_dirs.discard(self.dir)
        threading.Thread(target=os.waitpid, args=(pid, 0), name="reap-%d" % pid, daemon=True).start()

    def _child(self, ppid):
        """The session's own process: it plays the rounds, so that sessions
        do not share one GIL, and exits when the host closes the socket."""
        code = 0
        try:
            gc.disable()  # nothing of the parent's (gRPC) may be finalised here
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's cleanup
            if _plugin_io.real_stdout() is not None:
                os.close(_plugin_io.real_stdout())
            threading.Thread(target=watch_parent, args=(self.core.p.name, ppid), daemon=True).start()
            prof = os.environ.get("REGRETBENCH_PLUGIN_CPUPROFILE")
            if prof:
                # As the Go SDK's: one file per process, here cProfile's
                # (python3 -m pstats FILE).
                import cProfile
                cProfile.runctx("self._run()", globals(), {"self": self},
                                "%s.%s.%d" % (prof, self.core.p.name, os.getpid()))
            else:
                self._run()
        except BaseException:  # noqa: BLE001 - whatever happens, never return into gRPC
            code = 1
        finally:
            os._exit(code)

    def _remove(self):
        self.ln.close()
        shutil.rmtree(self.dir, ignore_errors=True)
        _cleanup_dirs.discard(self.dir)

    def _run(self):
        self.ln.settimeout(STEP_ACCEPT_TIMEOUT)
        try:
            conn, _ = self.ln.accept()
        except OSError:
            return  # bench never came: the session is still served on gRPC
        finally:
            self._remove()
        conn.settimeout(None)
        with conn:
            try:
                self._serve(conn)
            except (OSError, frames.FrameError):
                pass  # the connection broke, or bench sent garbage

    def _serve(self, conn):
        core, sid = self.core, self.sid
        s = core.session(sid)
        if s.ctx_len is not None:
            return self._serve_contextual(conn, s)
        n, nd = s.n, len(core.p.diagnostics)
        delayed = s.spec.feedback is not None
        head = 4 + frames.REQUEST_HEADER
        inbuf = bytearray(head + 12 * n)
        inview = memoryview(inbuf)
        in_arms = np.frombuffer(inbuf, "<i4", n, head)
        in_rewards = np.frombuffer(inbuf, "<f8", n, head + 4 * n)
        no_arms, no_rewards = in_arms[:0], in_rewards[:0]
        out_short = 1 + 4 + 4 * n + 4          # payload without diagnostics
        outbuf = bytearray(4 + out_short + 8 * nd * n)
        outview = memoryview(outbuf)
        struct.pack_into("<BI", outbuf, 4, frames.OK, n)
        out_arms = np.frombuffer(outbuf, "<i4", n, 9)
        out_diag = np.frombuffer(outbuf, "<f8", nd * n, 4 + out_short).reshape(nd, n)
        unpack_len = struct.Struct("<I").unpack_from
        unpack_head = struct.Struct("<QBI").unpack_from
        recv_into = conn.recv_into
        full = head + 12 * n
        while True:
            got = recv_into(inview)
            if got == 0:
                return
            while got < 4:
                m = recv_into(inview[got:])
                if m == 0:
                    return
                got += m
            length = unpack_len(inbuf)[0]
            limit = frames.MAX_FRAME
            if delayed:
                # Rounds of a session are sequential: nothing else moves
                # its count of pending rewards while this one waits.
                pending = s.pending()
                limit = min(frames.REQUEST_HEADER + 4 * n + 4 + frames.ARRIVAL_BYTES * pending, frames.MAX_FRAME)
            if length > limit:
                conn.sendall(frames.encode_error(frames.INVALID, "step socket: frame of %d bytes exceeds the limit of %d"
                                                 % (length, limit)))
                return
            end = 4 + length
            if got > end:
                conn.sendall(frames.encode_error(frames.INVALID, "step socket: %d bytes follow a frame of %d: "
                                                 "the peer did not wait for the answer" % (got - end, length)))
                return
            if delayed and end > full:
                # Arrivals make frames of varying size, bounded above by
                # the pending rewards: grow the buffer (never shrink it),
                # so that later rounds read in place again.
                full = min(max(end, 2 * full), 4 + limit)
                grown = bytearray(full)
                grown[:got] = inview[:got]
                inbuf, inview = grown, memoryview(grown)
                in_arms = np.frombuffer(inbuf, "<i4", n, head)
                in_rewards = np.frombuffer(inbuf, "<f8", n, head + 4 * n)
            if end <= full:
                while got < end:
                    m = recv_into(inview[got:end])
                    if m == 0:
                        return
                    got += m
                payload = inview[4:end]
            else:  # not a frame of this session's size: read it whole, to refuse it
                rest = bytearray(end - got)
                view = memoryview(rest)
                r = 0
                while r < len(rest):
                    m = recv_into(view[r:])
                    if m == 0:
                        return
                    r += m
                payload = memoryview(bytes(inview[4:got]) + rest)
            if length < frames.REQUEST_HEADER:
                conn.sendall(frames.encode_error(frames.INVALID, "step socket: truncated frame"))
                return
            rnd, flags, m = unpack_head(payload)
            if flags & frames.FLAG_CONTEXTS:
                conn.sendall(frames.encode_error(frames.INVALID, "step socket: request frame with contexts (flag bit "
                                                 "2) in a context-free session"))
                return
            if flags & frames.FLAG_ARRIVALS:
                if m != n and m != 0:
                    conn.sendall(frames.encode_error(frames.INVALID, "step socket: request frame for %d replications "
                                                     "in a session of %d" % (m, n)))
                    return
                try:
                    # Views of this frame's bytes: the count is bounded by
                    # the rewards pending before anything is allocated.
                    pa, arrivals = frames.decode_arrivals(payload, m, s.pending() if delayed else 0)
                except frames.FrameError as e:
                    conn.sendall(frames.encode_error(frames.INVALID, "step socket: %s" % e))
                    return
                if not self._answer(conn, rnd, pa, no_rewards, flags, arrivals, out_arms, out_diag, outbuf,
                                    outview, out_short, nd):
                    return
                continue
            if length != frames.REQUEST_HEADER + 12 * m:
                conn.sendall(frames.encode_error(frames.INVALID, "step socket: request frame of %d bytes for %d replications"
                                                 % (length, m)))
                return
            if m == n and end <= full:
                pa, pr = in_arms, in_rewards
            elif m == 0:
                pa, pr = no_arms, no_rewards
            else:
                _, _, pa, pr, _, _ = frames.decode_request(bytes(payload))
            self._answer(conn, rnd, pa, pr, flags, None, out_arms, out_diag, outbuf, outview, out_short, nd)

    def _serve_contextual(self, conn, s):
        """The rounds of a contextual session (protocol 3): every request
        has flag bit 2 and ends with the round's n x width contexts, which
        the policy gets as a numpy view of the frame received, aligned to
        8 bytes from round 2 on; every answer ends with the probabilities
        block. Contextual sessions take immediate feedback only, so every
        frame has one of two sizes: round 1's, without previous arms and
        rewards, and the others'."""
        core, sid = self.core, self.sid
        n, nd, c = s.n, len(core.p.diagnostics), s.ctx_len
        head = 4 + frames.REQUEST_HEADER
        full = head + 12 * n + 4 + 8 * c     # a frame of round 2 on, its length prefix included
        first = head + 4 + 8 * c             # round 1's: no previous arms or rewards
        # The receive buffer starts pad bytes into an array numpy aligned,
        # so that the contexts of rounds 2.. lie on 8-byte boundaries.
        pad = -(head + 12 * n + 4) % 8
        raw = np.empty(pad + full, dtype=np.uint8)
        inview = memoryview(raw)[pad:]
        in_arms = np.frombuffer(inview, "<i4", n, head)
        in_rewards = np.frombuffer(inview, "<f8", n, head + 4 * n)
        in_ctx = np.frombuffer(inview, "<f8", c, head + 12 * n + 4)
        first_ctx = np.frombuffer(inview, "<f8", c, head + 4)
        no_arms, no_rewards = in_arms[:0], in_rewards[:0]
        # The answer: arms, d diagnostics (0 or nd), then uint32 p and p
        # probabilities, which the policy writes in place: one view of the
        # frame for each of the two places they can lie.
        out_short = 1 + 4 + 4 * n + 4
        outbuf = bytearray(4 + out_short + 8 * nd * n + 4 + 8 * n)
        outview = memoryview(outbuf)
        struct.pack_into("<BI", outbuf, 4, frames.OK, n)
        out_arms = np.frombuffer(outbuf, "<i4", n, 9)
        out_diag = np.frombuffer(outbuf, "<f8", nd * n, 4 + out_short).reshape(nd, n)
        probs_at = {False: 4 + out_short, True: 4 + out_short + 8 * nd * n}  # where p lies
        out_probs = {k: np.frombuffer(outbuf, "<f8", n, v + 4) for k, v in probs_at.items()}
        pack_u32 = struct.Struct("<I").pack_into
        unpack_len = struct.Struct("<I").unpack_from
        unpack_head = struct.Struct("<QBI").unpack_from
        recv_into = conn.recv_into

        def refuse(msg):
            conn.sendall(frames.encode_error(frames.INVALID, "step socket: " + msg))

        while True:
            got = recv_into(inview)
            if got == 0:
                return
            while got < 4:
                m = recv_into(inview[got:])
                if m == 0:
                    return
                got += m
            length = unpack_len(inview)[0]
            end = 4 + length
            if end > full:
                refuse("frame of %d bytes exceeds the limit of %d in this contextual session (%d replications, "
                       "%d context values)" % (length, full - 4, n, c))
                return
            if got > end:
                refuse("%d bytes follow a frame of %d: the peer did not wait for the answer" % (got - end, length))
                return
            while got < end:
                m = recv_into(inview[got:end])
                if m == 0:
                    return
                got += m
            if length < frames.REQUEST_HEADER:
                refuse("truncated frame")
                return
            rnd, flags, m = unpack_head(inview, 4)
            if not flags & frames.FLAG_CONTEXTS or flags & frames.FLAG_ARRIVALS:
                refuse("request frame with flags %#x in a contextual session: want bit 2 (contexts) set and bit 1 "
                       "(arrivals) clear" % flags)
                return
            if m == n and end == full and unpack_len(inview, full - 8 * c - 4)[0] == c:
                pa, pr, ctx = in_arms, in_rewards, in_ctx
            elif m == 0 and end == first and unpack_len(inview, head)[0] == c:
                pa, pr, ctx = no_arms, no_rewards, first_ctx
            else:  # the core or the decoder says what is wrong
                try:
                    _, _, pa, pr, _, ctx = frames.decode_request(bytes(inview[4:end]))
                except frames.FrameError as e:
                    refuse(str(e))
                    return
            want = bool(flags & frames.FLAG_WANT_DIAG) and nd > 0
            try:
                _, diag, probs = core.step_contextual(sid, rnd, pa, pr, ctx, want, out_arms, out_diag,
                                                      out_probs[want])
            except InvalidRequest as e:
                conn.sendall(frames.encode_error(frames.INVALID, str(e)))
                continue
            except PolicyFailed as e:
                conn.sendall(frames.encode_error(frames.FAILED, str(e)))
                continue
            at = probs_at[want]
            pack_u32(outbuf, 4 + out_short - 4, nd if want else 0)
            p = 0 if probs is None else n
            pack_u32(outbuf, at, p)
            size = at + 4 + 8 * p
            pack_u32(outbuf, 0, size - 4)
            conn.sendall(outview[:size])

    def _answer(self, conn, rnd, pa, pr, flags, arrivals, out_arms, out_diag, outbuf, outview, out_short, nd,
                pack_u32=struct.Struct("<I").pack_into):
        """Plays one round and sends its answer; True to go on."""
        try:
            _, diag = self.core.step(self.sid, rnd, pa, pr, bool(flags & frames.FLAG_WANT_DIAG), out_arms, out_diag,
                                     arrivals)
        except InvalidRequest as e:
            conn.sendall(frames.encode_error(frames.INVALID, str(e)))
            return True
        except PolicyFailed as e:
            conn.sendall(frames.encode_error(frames.FAILED, str(e)))
            return True
        if diag is None:
            pack_u32(outbuf, 0, out_short)
            pack_u32(outbuf, 4 + out_short - 4, 0)
            conn.sendall(outview[:4 + out_short])
        else:
            pack_u32(outbuf, 0, len(outbuf) - 4)
            pack_u32(outbuf, 4 + out_short - 4, nd)
            conn.sendall(outview)
        return True


def _feedback(msg):
    """The Feedback of an OpenRequest, or None (immediate)."""
    if not msg.HasField("feedback"):
        return None
    f = msg.feedback
    return Feedback(kind=f.kind or "(empty)", delay=min(f.delay, 1 << 62), mean=f.mean,
                    batch=min(f.batch, 1 << 62))


def _context(msg):
    """The Context of an OpenRequest, or None (a context-free session)."""
    if not msg.HasField("context"):
        return None
    return Context(dim=msg.context.dim, per_arm=msg.context.per_arm)


def _arrivals(request):
    """The arrivals of a StepRequest as numpy arrays, or None."""
    arr = request.arrivals
    if not len(arr):
        return None
    return frames.Arrivals([a.index for a in arr], [a.round for a in arr], [a.arm for a in arr],
                           [a.reward for a in arr])


def _servicers(plugin, core, shutdown, version=PROTOCOL_VERSION):
    import grpc

    from ._pb import (grpc_controller_pb2, grpc_controller_pb2_grpc, grpc_stdio_pb2_grpc, health_pb2,
                      health_pb2_grpc, policy_pb2, policy_pb2_grpc)

    def abort(context, e):
        code = grpc.StatusCode.INVALID_ARGUMENT if isinstance(e, InvalidRequest) else grpc.StatusCode.INTERNAL
        context.abort(code, str(e))

    class Health(health_pb2_grpc.HealthServicer):
        def Check(self, request, context):
            if request.service not in ("", "plugin"):
                context.abort(grpc.StatusCode.NOT_FOUND, "unknown service %r" % request.service)
            return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    class Controller(grpc_controller_pb2_grpc.GRPCControllerServicer):
        def Shutdown(self, request, context):
            shutdown.set()
            return grpc_controller_pb2.Empty()

    class Stdio(grpc_stdio_pb2_grpc.GRPCStdioServicer):
        # stdout is stderr after the handshake, which reaches bench
        # directly: nothing to forward. Block until cancelled.
        def StreamStdio(self, request, context):
            done = threading.Event()
            context.add_callback(done.set)
            while context.is_active() and not shutdown.is_set():
                done.wait(0.5)
            return iter(())

    contextual, contextual_only = contextual_flags(plugin, version)
    desc = policy_pb2.DescribeResponse(name=plugin.name, version=plugin.version,
                                       protocol_version=version, step_stream=True, sdk=SDK_VERSION,
                                       diagnostics=list(plugin.diagnostics), contextual=contextual,
                                       contextual_only=contextual_only)
    for d in plugin.params:
        p = desc.params.add(name=d.name, type=d.typ, doc=d.doc)
        _set_value(p.default, d.typ, d.default)
        if d.min is not None:
            p.min.value, p.min.exclusive = d.min.value, d.min.exclusive
        if d.max is not None:
            p.max.value, p.max.exclusive = d.max.value, d.max.exclusive
        for a in d.allowed:
            _set_value(p.allowed.add(), d.typ, a)

    class Policy(policy_pb2_grpc.PolicyServicer):
        def Describe(self, request, context):
            return desc

        def Open(self, request, context):
            feedback = _feedback(request)
            if feedback is not None and version < DELAYED_FEEDBACK_VERSION:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                              "delayed feedback (%s) needs protocol version %d, this connection speaks %d"
                              % (feedback, DELAYED_FEEDBACK_VERSION, version))
            ctx = _context(request)
            if ctx is not None and version < CONTEXTUAL_VERSION:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                              "contexts (%s) need protocol version %d, this connection speaks %d"
                              % (ctx, CONTEXTUAL_VERSION, version))
            try:
                sid = core.open(request.arms, request.horizon, list(request.replications), request.seed,
                                request.family, request.noise_sd, request.noise_known,
                                {k: _from_value(v) for k, v in request.params.items()}, request.init_pulls,
                                feedback, ctx)
            except (InvalidRequest, PolicyFailed) as e:
                abort(context, e)
            resp = policy_pb2.OpenResponse(session_id=sid)
            if request.step_socket:
                try:
                    resp.step_socket = _StepSocket(core, sid).path
                except OSError:
                    pass  # no socket (a path too long, say): bench uses Steps
            return resp

        def _step(self, request, context):
            ctx = request.contexts
            try:
                # play refuses contexts in a context-free session, and
                # their absence in a contextual one.
                arms, diag, probs = core.play(request.session_id, request.round,
                                              np.array(request.prev_arms, dtype=np.int32),
                                              np.array(request.prev_rewards, dtype=np.float64),
                                              request.want_diagnostics, arrivals=_arrivals(request),
                                              contexts=np.fromiter(ctx, np.float64, len(ctx)))
            except (InvalidRequest, PolicyFailed) as e:
                abort(context, e)
            resp = policy_pb2.StepResponse(arms=arms.tolist())
            if diag is not None:
                for name, row in zip(plugin.diagnostics, diag):
                    resp.diagnostics.add(name=name, values=row.tolist())
            if probs is not None:
                resp.probs.extend(probs.tolist())
            return resp

        def Step(self, request, context):
            return self._step(request, context)

        def Steps(self, request_iterator, context):
            for request in request_iterator:
                yield self._step(request, context)

        def Close(self, request, context):
            try:
                core.close(request.session_id)
            except InvalidRequest as e:
                abort(context, e)
            return policy_pb2.CloseResponse()

    return [(health_pb2_grpc.add_HealthServicer_to_server, Health()),
            (grpc_controller_pb2_grpc.add_GRPCControllerServicer_to_server, Controller()),
            (grpc_stdio_pb2_grpc.add_GRPCStdioServicer_to_server, Stdio()),
            (policy_pb2_grpc.add_PolicyServicer_to_server, Policy())]


def _check_name(name):
    exe = os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "")
    if exe.startswith("bench-plugin-") and exe != "bench-plugin-" + name:
        _say("bench-plugin-%s: warning: this plugin's NAME is %r but its executable is %s: "
             "bench lists it as %r; rename one of them" % (name, name, exe, exe[len("bench-plugin-"):]))


def serve(plugin):
    """Serves plugin to bench until bench stops it, then exits the process.

    Run by hand as `bench-plugin-NAME describe` it prints the Describe
    answer as JSON and exits.
    """
    try:
        core = Core(plugin)
    except ValueError as e:
        _fail(plugin.name or "?", str(e))
    name = plugin.name
    _check_name(name)
    if sys.argv[1:] == ["describe"]:
        out = os.fdopen(os.dup(_plugin_io.real_stdout()), "w") if _plugin_io.real_stdout() is not None else sys.stdout
        json.dump(describe_dict(plugin), out, indent=2)
        out.write("\n")
        out.flush()
        return
    if os.environ.get(MAGIC_COOKIE_KEY) != MAGIC_COOKIE_VALUE:
        _fail(name, "this is a regretbench plugin: bench runs it, it is not meant to be run directly "
              "(the magic cookie %s is missing or wrong). Name it in a scenario as `plugin: %s`."
              % (MAGIC_COOKIE_KEY, name))
    try:
        version = negotiate(os.environ.get("PLUGIN_PROTOCOL_VERSIONS"))
    except ValueError as e:
        _fail(name, str(e))
    protect_stdout()
    # As go-plugin's Serve: ^C reaches the whole process group, and the
    # host, not the plugin, decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ppid = os.getppid()
    threading.Thread(target=watch_parent, args=(name, ppid), name="watch-parent", daemon=True).start()
    try:
        import google.protobuf  # noqa: F401
        import grpc
        from concurrent import futures
    except ImportError as e:
        _plugin_io.missing("grpc", "python3-grpcio and python3-protobuf", e)

    shutdown = threading.Event()
    own_dir = tempfile.mkdtemp(prefix="plugin-%s-" % name, dir=os.environ.get("PLUGIN_UNIX_SOCKET_DIR") or None)
    _cleanup_dirs.add(own_dir)
    atexit.register(_remove_dirs)
    signal.signal(signal.SIGTERM, _on_term)  # SIGKILL: bench removes our TMPDIR
    path = os.path.join(own_dir, "plugin.sock")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16),
                         options=[("grpc.max_receive_message_length", MAX_MESSAGE),
                                  ("grpc.max_send_message_length", MAX_MESSAGE)])
    for add, servicer in _servicers(plugin, core, shutdown, version):
        add(servicer, server)
    if server.add_insecure_port("unix:" + path) == 0:
        _fail(name, "cannot listen on unix socket %s" % path)
    server.start()
    line = ("%d|%d|unix|%s|grpc\n" % (CORE_PROTOCOL_VERSION, version, path)).encode()
    os.write(_plugin_io.real_stdout(), line)
    shutdown.wait()
    server.stop(0.2).wait()
    try:
        sys.stderr.flush()
    except Exception:  # noqa: BLE001
        pass
    _exit_now(0)
