#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 1s) each,
# $FUZZJOBS (default 2) at a time.
#
# Each package's test binary is built once and run once per target from the
# package's directory, so its testdata/fuzz/<target> seeds are read and a
# failing input is written there as `go test -fuzz` would. Only the package
# under test is built with the compiler's fuzzing instrumentation
# (-d=libfuzzer, the flag `go test -fuzz` adds to every package, SQLite's
# translation included, which alone takes a minute to compile), which guides
# the fuzzer through the decoder's own branches; every other package is built
# with $FUZZFLAGS, which `make fuzz` sets to the race-enabled tests' flags, so
# those packages are the ones the tests already compiled. That, one build per
# package instead of per target, and targets run side by side with one fuzz
# worker each keep `make test` inside its time on two cores.
#
# Go 1.26's fuzz coordinator can report "context deadline exceeded" when a
# duration -fuzztime ends while a worker is mid-input (golang/go#75804, fixed
# in Go 1.27). That is not a finding: a real failure always writes its input
# to testdata/fuzz/<target>/. So a failing run that wrote no new input and
# says only that is run once more; a second such run is reported and passes.
set -euo pipefail
fuzztime=${FUZZTIME:-1s}
jobs=${FUZZJOBS:-2}
flags=${FUZZFLAGS:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$(go env GOCACHE)/fuzz

corpus() { ls "$1/testdata/fuzz/$2" 2>/dev/null | sort || true; }

# run_one DIR NAME BIN LOG -> 0 ok, 1 failure with a new input or another
# error, 2 the coordinator race.
run_one() {
  local dir=$1 name=$2 bin=$3 log=$4 before after
  before=$(corpus "$dir" "$name")
  if (cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^${name}\$" -test.fuzztime="$fuzztime" \
    -test.parallel=1 -test.fuzzcachedir="$cache/$(cat "$bin.path")") >"$log" 2>&1; then
    return 0
  fi
  after=$(corpus "$dir" "$name")
  if [ "$before" = "$after" ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
    return 2
  fi
  return 1
}

# target DIR NAME BIN: one target, retried once on the coordinator race;
# prints its outcome and, on a finding, the fuzzer's log.
target() {
  local dir=$1 name=$2 bin=$3 log rc=0
  log="$work/$(echo "$dir.$name" | tr '/.' '__').log"
  run_one "$dir" "$name" "$bin" "$log" || rc=$?
  if [ "$rc" -eq 2 ]; then
    rc=0; run_one "$dir" "$name" "$bin" "$log" || rc=$?
    if [ "$rc" -eq 2 ]; then
      echo "fuzz $dir $name ($fuzztime): the go fuzz coordinator deadline race (golang/go#75804) twice, no input written: not a finding"
      echo race >>"$work/flaked"
      return 0
    fi
  fi
  if [ "$rc" -ne 0 ]; then
    echo "fuzz $dir $name ($fuzztime): FAILED"
    cat "$log"
    return 1
  fi
  echo "fuzz $dir $name ($fuzztime)"
}

# The targets, grouped by package directory, in a stable order.
list="$work/targets"
while IFS= read -r file; do
  grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E "s|^func (Fuzz[A-Za-z0-9_]+)\(|./$(dirname "$file") \1|" || true
done < <(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go' | sed 's|^\./||') | sort >"$list"
found=$(wc -l <"$list")

# One instrumented binary per package, $jobs built at a time: a build is
# mostly its link, which uses one core.
build() { # dir bin
  # shellcheck disable=SC2086
  if ! go test -c -vet=off $flags -gcflags="$1=-d=libfuzzer" -o "$2" "$1" >"$2.log" 2>&1; then
    echo "fuzz: building $1's test binary failed"
    cat "$2.log"
    return 1
  fi
  go list "$1" >"$2.path"
}
failed=0
for dir in $(cut -d' ' -f1 "$list" | uniq); do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || failed=1
  done
  build "$dir" "$work/$(echo "$dir" | tr '/.' '__').test" &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
  wait -n || failed=1
done
if [ "$failed" -ne 0 ]; then
  exit 1
fi

# Run the targets $jobs at a time; stop at the first failure.
while read -r dir name; do
  bin="$work/$(echo "$dir" | tr '/.' '__').test"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || failed=1
  done
  [ "$failed" -eq 0 ] || break
  target "$dir" "$name" "$bin" &
done <"$list"
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
  wait -n || failed=1
done
if [ "$failed" -ne 0 ]; then
  exit 1
fi
flaked=0
if [ -f "$work/flaked" ]; then
  flaked=$(wc -l <"$work/flaked")
fi
echo "fuzz: $found targets ($flaked hit the coordinator race twice)"
