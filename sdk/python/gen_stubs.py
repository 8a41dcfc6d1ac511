#!/usr/bin/python3
"""Regenerates the committed gRPC stubs in regretbench/_pb/ from sdk/proto.

Run from anywhere (`make python-stubs` calls it). Needs Debian's
protobuf-compiler (protoc >= 3.20, for messages that the protobuf 4 runtime
loads) and python3-grpc-tools (for the service stubs). The package's tests
call generate() into a temporary directory and compare with the committed
files, so a proto edited without regenerating fails `make test`.
"""

import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
PROTO = os.path.normpath(os.path.join(HERE, "..", "proto"))
OUT = os.path.join(HERE, "regretbench", "_pb")
FILES = ["policy.proto", "grpc_controller.proto", "grpc_stdio.proto", "health.proto"]
INCLUDES = ["-I", PROTO, "-I", os.path.join(PROTO, "goplugin"), "-I", os.path.join(PROTO, "grpchealth")]


def missing_tools():
    """What generate() needs and this machine lacks, as a sentence, or ''."""
    lack = []
    if shutil.which("protoc") is None:
        lack.append("protoc (Debian: protobuf-compiler)")
    try:
        import grpc_tools  # noqa: F401
    except ImportError:
        lack.append("grpc_tools for %s (Debian: python3-grpc-tools)" % sys.executable)
    return "; ".join(lack)


def generate(out):
    """Writes the stubs into directory out, imports made package-relative."""
    os.makedirs(out, exist_ok=True)
    subprocess.run(["protoc"] + INCLUDES + ["--python_out=" + out] + FILES, cwd=PROTO, check=True)
    import grpc_tools
    wkt = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc"] + INCLUDES + ["-I", wkt,
                    "--grpc_python_out=" + out] + FILES, cwd=PROTO, check=True)
    for name in sorted(os.listdir(out)):
        if name.endswith("_pb2_grpc.py"):
            path = os.path.join(out, name)
            with open(path) as f:
                src = f.read()
            # grpc_tools imports the message module as a top-level module.
            src = re.sub(r"^import (\w+_pb2) as", r"from . import \1 as", src, flags=re.M)
            with open(path, "w") as f:
                f.write(src)


if __name__ == "__main__":
    lack = missing_tools()
    if lack:
        sys.exit("gen_stubs: missing " + lack)
    generate(OUT)
    print("regenerated", OUT)
