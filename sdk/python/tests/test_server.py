"""The served plugin, end to end: launched as bench launches it."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import numpy as np

import helpers
import regretbench as rb
from regretbench import frames
from regretbench.core import Core

ENV = dict(os.environ, REGRETBENCH_PLUGIN="7f3c1e9a-remax-bandit-policy", PLUGIN_PROTOCOL_VERSIONS="1",
           PYTHONPATH=helpers.PKG)


def wait_exit(pid, limit=30.0):
    """Waits for process pid (not our child) to be gone; False if it is
    still there after limit seconds (a failure bound, not a timing)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def play_socket(path, rounds, n, k, rewards):
    """Plays rounds on a step socket; returns the arms of every round."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    out, prev_a, prev_r = [], [], []
    for t in range(1, rounds + 1):
        s.sendall(frames.encode_request(t, prev_a, prev_r))
        head = s.recv(4, socket.MSG_WAITALL)
        body = s.recv(int.from_bytes(head, "little"), socket.MSG_WAITALL)
        status, arms, _, _, msg = frames.decode_response(body)
        if status != frames.OK:
            raise AssertionError("round %d: status %d: %s" % (t, status, msg))
        out.append(arms.tolist())
        prev_a = arms.tolist()
        prev_r = [rewards[a] for a in prev_a]
    s.close()
    return out


@unittest.skipIf(helpers.NO_GRPC, helpers.NO_GRPC)
class ServedPluginTest(unittest.TestCase):
    def launch(self, path, env=ENV, stderr=subprocess.PIPE, version=1):
        p = subprocess.Popen([path], env=env, stdout=subprocess.PIPE, stderr=stderr)
        line = p.stdout.readline().decode()
        self.assertRegex(line, r"^1\|%d\|unix\|/.*\|grpc\n$" % version, "handshake line")
        return p, line.split("|")[3]

    def test_delayed_feedback_over_socket_stream_and_unary(self):
        import grpc
        from regretbench._pb import grpc_controller_pb2, grpc_controller_pb2_grpc, policy_pb2, policy_pb2_grpc
        p, addr = self.launch(helpers.example("tsnp"), dict(ENV, PLUGIN_PROTOCOL_VERSIONS="1,2"), version=2)
        try:
            ch = grpc.insecure_channel("unix:" + addr)
            pol = policy_pb2_grpc.PolicyStub(ch)
            self.assertEqual(pol.Describe(policy_pb2.DescribeRequest()).protocol_version, 2)
            k, reps, rounds, delay = 3, [4, 0, 8], 14, 2
            means = [0.1, 0.6, 0.3]
            req = dict(arms=k, horizon=40, replications=reps, seed=9, family="gaussian", noise_sd=0.5,
                       noise_known=True, init_pulls=1, feedback=policy_pb2.Feedback(kind="delay", delay=delay))

            def arrivals_of(history, t):
                # Rewards of round t-delay-1 arrive at the start of round t.
                r = t - delay - 1
                if r < 1:
                    return []
                return [(i, r, a, means[a] + 0.01 * r) for i, a in enumerate(history[r - 1])]

            # The step socket, with frames of flag bit 1.
            o = pol.Open(policy_pb2.OpenRequest(step_socket=True, **req))
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(o.step_socket)
            by_socket = []
            for t in range(1, rounds + 1):
                prev = by_socket[-1] if by_socket else []
                sock.sendall(frames.encode_request(t, prev, [], arrivals=arrivals_of(by_socket, t)))
                head = sock.recv(4, socket.MSG_WAITALL)
                status, arms, _, _, msg = frames.decode_response(sock.recv(int.from_bytes(head, "little"),
                                                                        socket.MSG_WAITALL))
                self.assertEqual(status, frames.OK, msg)
                by_socket.append(arms.tolist())
            # More arrivals than rewards pending: refused (status 2), and
            # the connection ends.
            too_many = [(0, r, 0, 0.0) for r in range(1, 3 * rounds + 2)]
            sock.sendall(frames.encode_request(rounds + 1, by_socket[-1], [], arrivals=too_many))
            head = sock.recv(4, socket.MSG_WAITALL)
            status, _, _, _, msg = frames.decode_response(sock.recv(int.from_bytes(head, "little"), socket.MSG_WAITALL))
            self.assertEqual(status, frames.INVALID)
            self.assertIn("exceeds the limit", msg)
            try:
                self.assertEqual(sock.recv(1), b"", "the plugin ends the connection")
            except ConnectionResetError:
                pass  # ended with the rest of our frame unread
            sock.close()
            pol.Close(policy_pb2.CloseRequest(session_id=o.session_id))

            def requests(sid, history):
                for t in range(1, rounds + 1):
                    yield policy_pb2.StepRequest(
                        session_id=sid, round=t, prev_arms=history[t - 2] if t > 1 else [],
                        arrivals=[policy_pb2.Arrival(index=i, round=r, arm=a, reward=x)
                                  for i, r, a, x in arrivals_of(history, t)])
            o2 = pol.Open(policy_pb2.OpenRequest(**req))
            by_stream = [list(r.arms) for r in pol.Steps(requests(o2.session_id, by_socket))]
            self.assertEqual(by_stream, by_socket)
            o3 = pol.Open(policy_pb2.OpenRequest(**req))
            by_unary = [list(pol.Step(r).arms) for r in requests(o3.session_id, by_socket)]
            self.assertEqual(by_unary, by_socket)
            self.assertEqual(by_socket[:k], [[t] * len(reps) for t in range(k)])  # forced rounds
            # Arrivals of the wrong round over gRPC: INVALID_ARGUMENT, named.
            o4 = pol.Open(policy_pb2.OpenRequest(**req))
            pol.Step(policy_pb2.StepRequest(session_id=o4.session_id, round=1))
            with self.assertRaises(grpc.RpcError) as cm:
                pol.Step(policy_pb2.StepRequest(session_id=o4.session_id, round=2, prev_arms=[0, 0, 0],
                                                arrivals=[policy_pb2.Arrival(index=0, round=2, arm=0)]))
            self.assertEqual(cm.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn("arrival 0: replication 4: pulled in round 2, want 1..1", cm.exception.details())
            grpc_controller_pb2_grpc.GRPCControllerStub(ch).Shutdown(grpc_controller_pb2.Empty())
            self.assertEqual(p.wait(30), 0)
        finally:
            p.kill()
            p.wait()
            p.stdout.close()
            p.stderr.close()

    def test_protocol_1_refuses_delayed_feedback(self):
        import grpc
        from regretbench._pb import policy_pb2, policy_pb2_grpc
        p, addr = self.launch(helpers.example("epsgreedy"))  # PLUGIN_PROTOCOL_VERSIONS=1
        try:
            pol = policy_pb2_grpc.PolicyStub(grpc.insecure_channel("unix:" + addr))
            self.assertEqual(pol.Describe(policy_pb2.DescribeRequest()).protocol_version, 1)
            with self.assertRaises(grpc.RpcError) as cm:
                pol.Open(policy_pb2.OpenRequest(arms=2, horizon=10, replications=[0], family="gaussian",
                                                feedback=policy_pb2.Feedback(kind="batch", batch=3)))
            self.assertEqual(cm.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn("delayed feedback (batch 3) needs protocol version 2, this connection speaks 1",
                          cm.exception.details())
        finally:
            p.kill()
            p.wait()
            p.stdout.close()
            p.stderr.close()

    def test_no_common_version(self):
        r = subprocess.run([helpers.example("epsgreedy")], env=dict(ENV, PLUGIN_PROTOCOL_VERSIONS="4"),
                           capture_output=True, timeout=60)
        self.assertEqual((r.returncode, r.stdout), (1, b""))
        self.assertIn(b"the host speaks protocol versions 4; this plugin speaks 1,2,3", r.stderr)

    def test_tsnp_over_socket_and_stream(self):
        # A forked process per session (the default), and threads.
        for fork in ("1", "0"):
            with self.subTest(REGRETBENCH_PY_FORK=fork):
                self.tsnp_over_socket_and_stream(dict(ENV, REGRETBENCH_PY_FORK=fork))

    def tsnp_over_socket_and_stream(self, env):
        import grpc
        from regretbench._pb import (grpc_controller_pb2, grpc_controller_pb2_grpc, health_pb2, health_pb2_grpc,
                                     policy_pb2, policy_pb2_grpc)
        p, addr = self.launch(helpers.example("tsnp"), env)
        try:
            ch = grpc.insecure_channel("unix:" + addr)
            h = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service="plugin"))
            self.assertEqual(h.status, health_pb2.HealthCheckResponse.SERVING)
            pol = policy_pb2_grpc.PolicyStub(ch)
            d = pol.Describe(policy_pb2.DescribeRequest())
            self.assertEqual((d.name, d.protocol_version, d.step_stream, d.sdk), ("tsnp", 1, True, rb.SDK_VERSION))
            self.assertEqual((d.params[0].name, d.params[0].default.float, d.params[0].min.exclusive),
                             ("inflation", 1.0, True))
            k, n, rounds, rewards = 4, 3, 12, [0.1, 0.5, 0.2, 0.3]
            req = dict(arms=k, horizon=50, replications=[7, 2, 9], seed=42, family="gaussian",
                       noise_sd=0.5, noise_known=True, init_pulls=1)
            with self.assertRaises(grpc.RpcError) as cm:
                pol.Open(policy_pb2.OpenRequest(params={"inflation": policy_pb2.Value(float=-1)}, **req))
            self.assertEqual(cm.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn("inflation", cm.exception.details())
            o = pol.Open(policy_pb2.OpenRequest(step_socket=True, **req))
            self.assertTrue(o.step_socket)
            by_socket = play_socket(o.step_socket, rounds, n, k, rewards)
            pol.Close(policy_pb2.CloseRequest(session_id=o.session_id))
            o2 = pol.Open(policy_pb2.OpenRequest(**req))
            self.assertFalse(o2.step_socket)

            def reqs():
                prev = []
                for t in range(1, rounds + 1):
                    yield policy_pb2.StepRequest(session_id=o2.session_id, round=t, prev_arms=prev,
                                                 prev_rewards=[rewards[a] for a in prev])
                    prev = by_socket[t - 1]  # lockstep: the same arms as the socket's
            by_stream = [list(r.arms) for r in pol.Steps(reqs())]
            self.assertEqual(by_stream, by_socket)
            # And both as the policy in process.
            plugin = helpers.load_example("tsnp")["served"]
            core = Core(plugin)
            sid = core.open(k, 50, [7, 2, 9], 42, "gaussian", 0.5, True, {}, 1)
            prev = np.zeros(0, np.int32)
            for t in range(1, rounds + 1):
                arms, _ = core.step(sid, t, prev, np.array([rewards[a] for a in prev.tolist()]), False)
                self.assertEqual(arms.tolist(), by_socket[t - 1], "round %d" % t)
                prev = arms.copy()
            self.assertEqual(by_socket[:k], [[t] * n for t in range(k)])  # forced rounds
            grpc_controller_pb2_grpc.GRPCControllerStub(ch).Shutdown(grpc_controller_pb2.Empty())
            self.assertEqual(p.wait(30), 0)
        finally:
            p.kill()
            p.wait()
            p.stdout.close()
            p.stderr.close()

    def write_plugin(self, name, body):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        path = os.path.join(d, "bench-plugin-" + name)
        with open(path, "w") as f:
            f.write("#!%s\n" % sys.executable + textwrap.dedent(body))
        os.chmod(path, 0o755)
        return path

    def test_stdout_protected_and_name_checked(self):
        path = self.write_plugin("other", """
            import regretbench as rb
            print("stray print at import")
            class P(rb.Policy):
                def __init__(self, s, r): pass
                def select(self, t):
                    print("stray print in select")
                    return 0
                def observe(self, t, a, r): pass
            rb.serve(rb.Plugin("stray", "1", new=P))
        """)
        p, _ = self.launch(path)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        self.assertEqual(out, b"", "nothing but the handshake on stdout")
        self.assertIn(b"stray print at import", err)
        self.assertIn(b"NAME is 'stray' but its executable is bench-plugin-other", err)

    def test_exits_when_bench_dies_even_with_stderr_broken(self):
        # An intermediate process (bench) starts the plugin with its stderr
        # a pipe nobody reads any more, prints the plugin's pid and is
        # SIGKILLed: the plugin must notice and exit.
        inter = textwrap.dedent("""
            import os, signal, subprocess, sys
            r, w = os.pipe()
            p = subprocess.Popen([sys.argv[1]], stdout=subprocess.PIPE, stderr=w)
            os.close(r)  # writes to the plugin's stderr now fail: EPIPE
            p.stdout.readline()
            print(p.pid, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        """)
        q = subprocess.Popen([sys.executable, "-c", inter, helpers.example("klucbpy")], env=ENV,
                             stdout=subprocess.PIPE)
        pid = int(q.stdout.readline())
        q.wait()
        q.stdout.close()
        self.assertTrue(wait_exit(pid), "the plugin %d still runs after bench was killed" % pid)

    def test_import_error_names_the_interpreter(self):
        fake = tempfile.mkdtemp()
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", fake]))
        with open(os.path.join(fake, "numpy.py"), "w") as f:
            f.write("raise ImportError('no numpy here')\n")
        env = dict(ENV, PYTHONPATH=fake + os.pathsep + helpers.PKG)
        r = subprocess.run([helpers.example("epsgreedy")], env=env, capture_output=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(sys.executable.encode(), r.stderr)
        self.assertIn(b"python3-numpy", r.stderr)

    def test_refuses_to_run_alone(self):
        env = {k: v for k, v in ENV.items() if k != "REGRETBENCH_PLUGIN"}
        r = subprocess.run([helpers.example("epsgreedy")], env=env, capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"magic cookie REGRETBENCH_PLUGIN", r.stderr)
        r = subprocess.run([helpers.example("epsgreedy"), "describe"], env=env, capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0)
        self.assertIn(b'"Name": "epsgreedy"', r.stdout)


if __name__ == "__main__":
    unittest.main()
