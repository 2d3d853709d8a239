#!/usr/bin/env bash
# Makes sure Debian's adb is installed: the tests and `make run` talk to the
# real adb server. Installs it when running as root; otherwise says how.
set -euo pipefail
if command -v adb >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "adb not found: installing Debian's adb (apt-get install -y adb)" >&2
  apt-get update -qq >/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq adb >/dev/null
  command -v adb >/dev/null 2>&1 && exit 0
fi
echo "adb is required but not installed. Install it with:  sudo apt-get install -y adb" >&2
exit 1
