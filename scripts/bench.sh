#!/usr/bin/env bash
# Runs the Go benchmarks and the bench/ programs, writing results under bench/results/.
set -euo pipefail
mkdir -p bench/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=bench/results/go-bench-$stamp.txt
go test -run='^$' -bench=. -benchmem -count=1 ./... | tee "$out"
for prog in bench/*/main.go; do
  [ -e "$prog" ] || continue
  name=$(basename "$(dirname "$prog")")
  args=()
  # The soak, the scale benchmark and agentstep run for minutes (make
  # soak, make bench-scale, make bench-agentstep); here only their short
  # runs, so the programs keep working without making every bench run long.
  case "$name" in soak | scale | agentstep) args=(-short) ;; esac
  echo "== bench/$name"
  go run "./bench/$name" -out "bench/results/$name-$stamp.json" "${args[@]}"
done
