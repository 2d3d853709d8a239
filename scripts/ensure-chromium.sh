#!/usr/bin/env bash
# Makes sure Debian's chromium is installed: the console's browser tests
# drive it headless (package device/console). Installs it when running as
# root, or with sudo when that needs no password; otherwise says how.
set -euo pipefail
for b in chromium chromium-browser; do
  if command -v "$b" >/dev/null 2>&1; then
    exit 0
  fi
done
install() {
  echo "chromium not found: installing Debian's chromium (apt-get install -y chromium)" >&2
  "$@" apt-get update -qq >/dev/null || true
  "$@" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    install
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    install sudo -n
  fi
  command -v chromium >/dev/null 2>&1 && exit 0
fi
echo "chromium is required for the console's browser tests but not installed. Install it with:  sudo apt-get install -y chromium" >&2
exit 1
