# fpcheck build, demo, test, bench and fuzz entry points.
GO      ?= go
BIN     := bin/fpcheck
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X main.version=$(VERSION)
DEMO    := testdata/recordings/demo

.PHONY: all build demo test test-slim test-deps browser-test bench fuzz docs clean

all: build

# bin/fpcheck is linked statically: it starts without the dynamic loader
# (half a millisecond of every run, 2 MB of memory) and runs on any Linux
# whatever its C library. Nothing in fpcheck needs cgo: with it off, Go's
# own DNS resolver and user lookups serve the object-store drivers.
CGO_ENABLED ?= 0

build:
	CGO_ENABLED=$(CGO_ENABLED) $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/fpcheck

# The demo replays a bundled recording of a two-turn triage conversation in
# which the model took a backup_status argument out of its own earlier prose.
# fpcheck exits 1 (a defect) there, so the demo reports the code instead of
# failing on it.
demo: build
	@./$(BIN) analyze --declarations $(DEMO)/declarations.yaml $(DEMO)/triage.jsonl; \
	  code=$$?; echo; echo "fpcheck exit code: $$code (0 green, 1 defects, 2 usage/unreadable, 3 unmeasured)"; \
	  test $$code -le 3

# The code keeps its system calls behind build tags; vetting for Windows and
# macOS as well keeps every package and test building there.
test: test-deps
	$(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	$(GO) test ./...
	$(MAKE) test-slim

# Builds that leave cloud drivers out (docs/ci.md, "Object storage"): all
# of them, which must still build and refuse those URLs by name, and S3
# alone, which must still read a bucket.
NOCLOUD := fpcheck_nos3,fpcheck_nogcs,fpcheck_noazure
test-slim:
	$(GO) vet -tags $(NOCLOUD) ./...
	$(GO) test -tags $(NOCLOUD) ./internal/objstore
	$(GO) test -tags fpcheck_nogcs,fpcheck_noazure -run '^TestObjectStorage|^TestDrivers$$' ./internal/objstore ./cmd/fpcheck

# The Debian packages some tests drive (tools/test-packages.txt).
test-deps:
	@bash tools/test-deps.sh

# The HTML report in headless Chromium alone (make test runs it too).
# Screenshots go to FPCHECK_BROWSER_ARTIFACTS when it is set.
browser-test: test-deps
	$(GO) test -count=1 -run '^TestBrowser$$' -v ./cmd/fpcheck

# Benchmarks: Go testing.B figures, then the side-by-side comparisons against
# node's JSON.parse, zstd -dc and the Go floor on generated and real-shaped
# recordings, and the peak memory of the hostile cases, in five rounds with a
# summary of how many met each target (BENCHFLAGS, e.g.
# BENCHFLAGS="-rounds 1 -size 256MiB -b-size 64MiB -mem-scale 0.02 -runs 1" for
# a quick pass, or -cases to pick some; see docs/performance.md).
BENCHFLAGS ?=
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./tools/bench -fpcheck $(BIN) -rounds 5 $(BENCHFLAGS)

# Each fuzz target for FUZZTIME (default 20s); see tools/fuzz.sh.
FUZZTIME ?= 20s
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash tools/fuzz.sh

clean:
	rm -rf bin
