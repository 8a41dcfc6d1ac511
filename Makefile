# regretbench: `make run` builds everything and runs a shipped scenario;
# `make test` runs vet and every test, including real plugin round trips;
# `make test-short` is the quick suite for development.
GO      ?= go
BIN     := bin
PLUGINS := ts klucb remax remaxgrad ucb1 moss exp3 swucb ducb linucb lints lingreedy linepsgreedy squarecb logts
SCENARIO ?= two_arm

.PHONY: all build install run test test-short test-python test-race lint gate baseline proto proto-check python-stubs bench bench-python bench-paper clean

all: build

# bench is cmd/bench; each shipped plugin is cmd/bench-plugin-NAME (a thin
# main over the package plugins/NAME), so that `go install .../cmd/...@latest`
# installs bench and the plugins side by side, as bench expects them.
build:
	$(GO) build -o $(BIN)/bench ./cmd/bench
	@for p in $(PLUGINS); do \
		$(GO) build -o $(BIN)/plugins/bench-plugin-$$p ./cmd/bench-plugin-$$p || exit 1; \
	done

# `make install PREFIX=DIR` (default /usr/local) installs bench and the
# shipped plugins into DIR/bin, the layout `go install ./cmd/...` gives:
# bench finds plugins in its own directory after any --plugin-dir and
# BENCH_PLUGIN_PATH directory (docs/install.md). DESTDIR stages it.
PREFIX  ?= /usr/local
BINDIR  := $(DESTDIR)$(PREFIX)/bin
install: build
	install -d "$(BINDIR)"
	install -m 0755 $(BIN)/bench "$(BINDIR)/bench"
	@for p in $(PLUGINS); do \
		install -m 0755 $(BIN)/plugins/bench-plugin-$$p "$(BINDIR)/bench-plugin-$$p" || exit 1; \
	done
	@echo "installed bench and $(words $(PLUGINS)) plugins in $(BINDIR)"

run: build
	./$(BIN)/bench --scenario $(SCENARIO)

# -timeout: go test's default, 10 minutes per package, is short of what
# the end-to-end tests (host/e2e) take on a loaded machine (their times
# are in docs/development.md); a test that hangs fails on its own
# deadlines (15 minutes at most for one command) long before an hour.
test:
	$(GO) vet ./...
	$(GO) test -timeout 60m ./...
	cd examples/ucb1 && $(GO) test ./...
	$(MAKE) --no-print-directory test-python

# The quick suite while developing (its time: docs/development.md).
# -short skips the slow end-to-end cases (bench conform over every
# plugin, the Python examples, bench paper, installed-bench and guide
# runs), each naming what it covers; `make test`, which CI runs, runs them.
test-short:
	$(GO) test -short ./...

# The tests under the race detector (slower: several minutes on 2 cores).
test-race:
	$(GO) test -timeout 60m -race ./...

# staticcheck with the committed staticcheck.conf, over every module.
STATICCHECK_VERSION := v0.8.2
lint:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GO) vet ./...
	"$$($(GO) env GOPATH)/bin/staticcheck" ./...
	cd examples/ucb1 && "$$($(GO) env GOPATH)/bin/staticcheck" ./...
	cd examples/k8s && "$$($(GO) env GOPATH)/bin/staticcheck" ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt would change these files"; exit 1; }

# The Python SDK's tests (sdk/python), under Debian's python3 as the Python
# examples' first line names it. Its end-to-end tests skip, saying so,
# without python3-grpcio.
PYTHON ?= /usr/bin/python3
test-python:
	@if ! [ -x $(PYTHON) ]; then \
		echo "skipping the Python SDK's tests: no $(PYTHON)"; \
	elif ! $(PYTHON) -c 'import numpy' 2>/dev/null; then \
		echo "skipping the Python SDK's tests: $(PYTHON) cannot import numpy (Debian: python3-numpy)"; \
	else \
		$(PYTHON) -m unittest discover -s sdk/python/tests; \
	fi

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

# The Python SDK's speed against Go's: ten_arm at 1000 x 20000 with the Go
# ts plugin, tsnp (batch API) and epsgreedy (per-replication): the whole
# bench process's wall time of ts and of tsnp (alternately, best of 3), and
# ns per replication-round from the results file (RUNS, HORIZON, REPEAT
# override the defaults).
bench-python: build
	sdk/python/bench/speed.sh

# The whole paper at full scale, with wall time, CPU time and peak RSS.
bench-paper: build
	/usr/bin/time -v ./$(BIN)/bench paper --out paper-results 2> paper-results.time
	@grep -E "Elapsed|User time|System time|Maximum resident" paper-results.time

# Regenerate the committed protobuf code (needs Debian's protobuf-compiler).
PROTOC_GEN := $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12 && \
	$(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.0
proto:
	$(PROTOC_GEN)
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" protoc -I sdk/proto \
		--go_out=. --go_opt=module=github.com/regretbench/regretbench \
		--go-grpc_out=. --go-grpc_opt=module=github.com/regretbench/regretbench \
		sdk/proto/policy.proto

# Check that the committed protobuf code is what sdk/proto generates: fails
# when someone edited policy.proto without `make proto`.
proto-check:
	$(PROTOC_GEN)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" protoc -I sdk/proto \
		--go_out=$$tmp --go_opt=module=github.com/regretbench/regretbench \
		--go-grpc_out=$$tmp --go-grpc_opt=module=github.com/regretbench/regretbench \
		sdk/proto/policy.proto && \
	diff -r $$tmp/internal/wire/pb internal/wire/pb && echo "protobuf code is current"

# Regenerate the Python SDK's committed gRPC stubs (needs Debian's
# protobuf-compiler and python3-grpc-tools).
python-stubs:
	$(PYTHON) sdk/python/gen_stubs.py

clean:
	rm -rf $(BIN)
