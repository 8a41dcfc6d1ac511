#!/bin/sh
# Regenerates the committed Python stubs in regretbench_pb/ from the protos
# in sdk/proto (run from anywhere; `make python-stubs` calls it).
# Needs Debian's protobuf-compiler (protoc >= 3.20, for messages that the
# protobuf 4 runtime loads) and python3-grpc-tools (for the service stubs).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
proto="$here/../../sdk/proto"
out="$here/regretbench_pb"
inc="-I $proto -I $proto/goplugin -I $proto/grpchealth"
files="policy.proto grpc_controller.proto grpc_stdio.proto health.proto"
mkdir -p "$out"
# shellcheck disable=SC2086
(cd "$proto" && protoc $inc --python_out="$out" $files)
# shellcheck disable=SC2086
(cd "$proto" && /usr/bin/python3 -m grpc_tools.protoc $inc \
	-I /usr/lib/python3/dist-packages/grpc_tools/_proto --grpc_python_out="$out" $files)
