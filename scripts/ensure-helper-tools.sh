#!/usr/bin/env bash
# Makes sure the tools that build and run the phone helper in tests are
# installed: Debian's smali (libsmali-java: assembles adb/helper/smali into
# classes.dex), enjarify (translates that dex to JVM bytecode so the helper's
# own code runs on the host JVM against the fake Android framework) and a JDK
# (javac builds the fake framework; java runs the helper). `go build` and
# `make run` never need them: the assembled jar is committed and embedded.
# Installs them when running as root, or with sudo when that needs no
# password; otherwise says how.
set -euo pipefail
have() {
  command -v smali >/dev/null 2>&1 && command -v enjarify >/dev/null 2>&1 &&
    command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1
}
have && exit 0
pkgs="libsmali-java enjarify default-jdk-headless"
install() {
  echo "helper tools missing: installing Debian's $pkgs (apt-get install -y)" >&2
  "$@" apt-get update -qq >/dev/null || true
  # shellcheck disable=SC2086
  "$@" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkgs >/dev/null
}
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    install
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    install sudo -n
  fi
  have && exit 0
fi
echo "smali, enjarify and a JDK are required to build and test the phone helper. Install them with:  sudo apt-get install -y $pkgs" >&2
exit 1
