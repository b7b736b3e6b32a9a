#!/usr/bin/env bash
# Installs the system programs the tests drive for real: tmux (dmux adapter tests),
# nats-server (NATSJournal tests) and chromium with its WebDriver (the dashboard's browser
# tests), from Debian's packages, when they are missing.
set -euo pipefail
missing=()
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
# Debian installs nats-server in /usr/sbin, which is not on every user's PATH.
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: need ${missing[*]} but apt-get is not available; install them by hand" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "system-deps: installing ${missing[*]} from Debian's packages"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
