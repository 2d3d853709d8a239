#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 3s) each.
set -euo pipefail
fuzztime=${FUZZTIME:-3s}
found=0
while IFS= read -r file; do
  dir=./$(dirname "$file")
  while IFS= read -r name; do
    found=$((found + 1))
    echo "fuzz $dir $name ($fuzztime)"
    go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$dir" >/tmp/fuzz.$$.log 2>&1 || { cat /tmp/fuzz.$$.log; rm -f /tmp/fuzz.$$.log; exit 1; }
  done < <(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/')
done < <(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go' | sed 's|^\./||')
rm -f /tmp/fuzz.$$.log
echo "fuzz: $found targets"
