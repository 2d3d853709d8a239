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
  # The soak runs for minutes (make soak); here only its short smoke run,
  # so the program keeps working without making every bench run long.
  [ "$name" = soak ] && args=(-short)
  echo "== bench/$name"
  go run "./bench/$name" -out "bench/results/$name-$stamp.json" "${args[@]}"
done
