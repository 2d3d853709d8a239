#!/usr/bin/env bash
# Puts promtool in the directory $1 (default .bin): the metrics test pipes a
# live /metrics scrape to `promtool check metrics`. It is taken from Debian's
# prometheus package, unpacked rather than installed, so no Prometheus
# service is set up on the machine. A promtool already on PATH is linked.
set -euo pipefail
dir=${1:-.bin}
mkdir -p "$dir"
if [ -x "$dir/promtool" ]; then
  exit 0
fi
if p=$(command -v promtool 2>/dev/null); then
  ln -sf "$p" "$dir/promtool"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "promtool is required: install Prometheus' promtool on PATH (Debian: apt-get install prometheus)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
if ! apt-get download prometheus >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >/dev/null || true
  fi
  apt-get download prometheus >/dev/null 2>&1 || {
    echo "cannot download Debian's prometheus package for promtool; run apt-get update as root, or install promtool on PATH" >&2
    exit 1
  }
fi
dpkg-deb -x prometheus_*.deb unpacked
cd - >/dev/null
install -m 0755 "$tmp/unpacked/usr/bin/promtool" "$dir/promtool"
echo "promtool installed in $dir from Debian's prometheus package" >&2
