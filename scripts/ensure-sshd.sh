#!/usr/bin/env bash
# Makes sure Debian's openssh-server is installed: the tests and the scale
# benchmark reach adb servers through a real sshd they start on loopback
# (package cmd/adb-connector, bench/scale). Only the binary is needed: no
# system sshd is enabled or started. Installs it when running as root, or
# with sudo when that needs no password; otherwise says how.
set -euo pipefail
if [ -x /usr/sbin/sshd ] && command -v ssh-keygen >/dev/null 2>&1; then
  exit 0
fi
install() {
  echo "sshd not found: installing Debian's openssh-server (apt-get install -y openssh-server)" >&2
  "$@" apt-get update -qq >/dev/null || true
  # RUNLEVEL=1: the package must not start a system sshd.
  "$@" env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq openssh-server >/dev/null
}
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    install
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    install sudo -n
  fi
  [ -x /usr/sbin/sshd ] && exit 0
fi
echo "sshd is required for the SSH endpoint tests but not installed. Install it with:  sudo apt-get install -y openssh-server" >&2
exit 1
