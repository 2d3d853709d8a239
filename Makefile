# adb-connector — build, run, test. `make run` and `make test` are the quick start.
SHELL := /bin/bash
GO ?= go
BIN := bin/adb-connector
PKG := github.com/adb-connector/adb-connector/internal/buildinfo
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-dev)
GIT_TAG ?= $(shell git describe --tags --exact-match 2>/dev/null)
GIT_REV ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
BUILD_TIME ?= $(shell date -u +%y%m%d%H%M)
LDFLAGS := -X $(PKG).Version=$(VERSION) -X $(PKG).GitTag=$(GIT_TAG) -X $(PKG).GitRev=$(GIT_REV) -X $(PKG).BuildTime=$(BUILD_TIME)
STATICCHECK := .bin/staticcheck
# promtool checks a live /metrics scrape in the tests (PROMTOOL is passed to go test).
PROMTOOL := .bin/promtool
FUZZTIME ?= 1s
# The build configuration of what we ship (package internal/release builds with CGO off and
# -trimpath): the staticcheck binary is built this way too, so it shares the standard library's
# compiled packages with the release test's host build.
SHIP_ENV := CGO_ENABLED=0 GOFLAGS=-trimpath
# The build configuration of the tests: race-enabled. vet (through go test), staticcheck and the
# fuzz binaries use it too, so each package is compiled once for all of them; a fuzz binary adds
# only its own package compiled with the fuzzing instrumentation, and its link.
TEST_FLAGS := -race
# The race detector's pause before a test binary exits, for reports from goroutines still
# running (default 1 s, paid by every one of about 60 test binaries and every race-enabled
# server a test starts); goleak already fails a test that leaves goroutines behind.
RACE_ENV := GORACE=atexit_sleep_ms=100
RUN_FLAGS ?= --virtual-devices 2
DIST := dist
# The commit time: every mtime in the tarballs and the release's build time, so that two
# releases of the same commit are byte-identical.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)

.PHONY: build run test checks lint fmt-check tidy-check vet staticcheck unit race shipped release-test fuzz bench soak bench-scale bench-agentstep deps test-deps clean release release-check

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/adb-connector

# Builds and serves on 127.0.0.1:8080 with virtual devices, so it works with no phone.
run: deps build
	$(BIN) serve $(RUN_FLAGS)

# The whole suite: formatting, vet, staticcheck, race-enabled tests, the release test, a short run
# of every fuzz target, in two lines side by side (checks and shipped, one per core) on the
# two-core machines make test must finish on in ten minutes.
test: test-deps
	@$(MAKE) --no-print-directory -j2 checks shipped

# make test's two lines, each one step after another. The race-enabled tests compile every package
# once for themselves, vet, staticcheck and the fuzz binaries (TEST_FLAGS) and mostly wait on the
# phones' modelled timings; the release test compiles the shipped build and its one cross build.
# staticcheck, installed first in the shipped line, follows the tests, so the lines end together.
checks:
	@$(MAKE) --no-print-directory race
	@$(MAKE) --no-print-directory staticcheck

shipped: fmt-check tidy-check
	@$(MAKE) --no-print-directory $(STATICCHECK)
	@$(MAKE) --no-print-directory release-test
	@$(MAKE) --no-print-directory fuzz

# Every test: the race-enabled ones and the release test.
unit: race release-test

# What serving needs: Debian's adb.
deps:
	@scripts/ensure-adb.sh

# What the tests need besides: promtool for the metrics test, chromium for the console's browser test,
# smali, enjarify and a JDK for the phone helper (assembled and run on the host JVM; never needed to build),
# sshd for the SSH endpoint tests (and bench-scale).
test-deps: deps $(PROMTOOL)
	@scripts/ensure-chromium.sh
	@scripts/ensure-helper-tools.sh
	@scripts/ensure-sshd.sh

$(PROMTOOL):
	@scripts/ensure-promtool.sh $(CURDIR)/.bin

lint: fmt-check vet staticcheck tidy-check

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

tidy-check:
	$(GO) mod tidy -diff

# make test vets every package inside the race-enabled run (go test -vet=all: the same checks).
vet:
	$(GO) vet $(TEST_FLAGS) ./...

$(STATICCHECK):
	$(SHIP_ENV) GOBIN=$(CURDIR)/.bin $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

staticcheck: $(STATICCHECK)
	GOFLAGS="$(TEST_FLAGS)" $(STATICCHECK) ./...

# The race-enabled tests of every package but the release test's, which builds release binaries
# (no data race to find there) and runs in the shipped line. go vet's full set of checks runs on
# every package here, the release test's too, on the packages these tests compiled.
race:
	$(RACE_ENV) PROMTOOL=$(CURDIR)/$(PROMTOOL) $(GO) test $(TEST_FLAGS) -vet=all -count=1 -timeout 15m \
		$$($(GO) list ./... | grep -v '/internal/release$$')
	$(GO) vet $(TEST_FLAGS) ./internal/release/

release-test:
	$(SHIP_ENV) $(GO) test -vet=off -count=1 -timeout 15m ./internal/release/

fuzz:
	@$(RACE_ENV) FUZZTIME=$(FUZZTIME) FUZZFLAGS="$(TEST_FLAGS)" scripts/fuzz.sh

# Benchmarks: Go benchmarks plus the scripts under bench/, results in bench/results/.
bench: deps build
	@scripts/bench.sh

# The soak: the real server under load, floods and adb server kills for 3 minutes, then its
# goroutines, FDs and RSS against where it started (bench/results/soak-<time>.json). Not part
# of test. SOAK_FLAGS="-short" for a quick run, "-strict" to fail on a leak or unexpected outcome.
SOAK_FLAGS ?=
soak: deps build
	$(GO) run ./bench/soak -bin $(BIN) $(SOAK_FLAGS)

# The scale benchmark: 64 virtual phones (their own process) on 2 adb servers, 64 channels
# acting at once for 5 minutes: calls/s and p50/p99 per tool, serve's RSS per phone, goroutines
# and FDs back to their baseline (bench/results/scale-<time>.json). Not part of test.
# SCALE_FLAGS="-short" for 16 phones and 30 s.
SCALE_FLAGS ?=
bench-scale: deps build
	$(GO) run ./bench/scale -bin $(BIN) $(SCALE_FLAGS)

# Agent tasks (log in, toggle Wi-Fi, scroll to Item 80, open a URL) and single steps through our
# server and tools against one adb CLI process per operation, on the same virtual phone with the
# pixel-usb and wifi timing profiles: p50/p90 ratios, device commands and link bytes per task
# (bench/results/agentstep-<time>.json). About 10 minutes; not part of test.
# AGENTSTEP_FLAGS="-short" for under 2 minutes (no list task), "-strict" to fail on a missed target.
AGENTSTEP_FLAGS ?=
bench-agentstep: deps build
	$(GO) run ./bench/agentstep -bin $(BIN) $(AGENTSTEP_FLAGS)

# Release tarballs for linux and darwin on amd64 and arm64, and SHA256SUMS, into dist/
# (scripts/release, package internal/release). VERSION=0.3.0 to name a version that has no tag.
release:
	rm -rf $(DIST)
	$(GO) run ./scripts/release -out $(DIST) -go $(GO) -version '$(VERSION)' -tag '$(GIT_TAG)' \
		-rev '$(GIT_REV)' -epoch '$(SOURCE_DATE_EPOCH)'

# Builds a release of every target twice, the second time from a copy of the sources with an
# empty build cache, checks the two are byte-identical, unpacks every tarball and runs the
# host's binary. `make test` runs the same test on the host and one other target, built once
# (the packaging, one cross build and the host binary's version; no byte comparison).
release-check:
	$(GO) test -count=1 -timeout 30m -run '^TestRelease' ./internal/release/ -args -all-targets

clean:
	rm -rf bin .bin $(DIST)
