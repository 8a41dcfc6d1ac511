# regretbench: `make run` builds everything and runs a shipped scenario;
# `make test` runs vet and every test, including real plugin round trips.
GO      ?= go
BIN     := bin
PLUGINS := ts klucb remax remaxgrad
SCENARIO ?= two_arm

.PHONY: all build run test gate baseline proto python-stubs bench bench-paper clean

all: build

build:
	$(GO) build -o $(BIN)/bench ./host
	@for p in $(PLUGINS); do \
		$(GO) build -o $(BIN)/plugins/bench-plugin-$$p ./plugins/$$p || exit 1; \
	done

run: build
	./$(BIN)/bench --scenario $(SCENARIO)

test:
	$(GO) vet ./...
	$(GO) test ./...

# The project gates itself (.ci/run runs `make gate`): a small fixed
# scenario of every shipped plugin against a committed baseline, under
# common random numbers, where any change of a plugin's behaviour, better
# or worse, fails with the verdict table. After an intended change, run
# `make baseline` and commit testdata/ci/baseline.json with the change.
CI_GATE     := testdata/ci/gate.yaml
CI_BASELINE := testdata/ci/baseline.json

gate: build
	./$(BIN)/bench --scenario $(CI_GATE) --quiet --baseline $(CI_BASELINE) --margin 0 --require-same

baseline: build
	./$(BIN)/bench --scenario $(CI_GATE) --quiet --out $(CI_BASELINE)

# Go benchmarks of the hot paths: policies per round, the engine in process
# vs through a real plugin process. Compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./plugins/... ./host/engine/ | tee bench.txt

# The whole paper at full scale, with wall time, CPU time and peak RSS.
bench-paper: build
	/usr/bin/time -v ./$(BIN)/bench paper --out paper-results 2> paper-results.time
	@grep -E "Elapsed|User time|System time|Maximum resident" paper-results.time

# Regenerate the committed protobuf code (needs Debian's protobuf-compiler).
proto:
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	$(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.0
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" protoc -I sdk/proto \
		--go_out=. --go_opt=module=github.com/regretbench/regretbench \
		--go-grpc_out=. --go-grpc_opt=module=github.com/regretbench/regretbench \
		sdk/proto/policy.proto

# Regenerate the Python example's committed gRPC stubs (needs Debian's
# protobuf-compiler and python3-grpc-tools).
python-stubs:
	examples/python/gen_stubs.sh

clean:
	rm -rf $(BIN)
