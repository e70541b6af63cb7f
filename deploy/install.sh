#!/usr/bin/env bash
# Installs what the gateway needs on a fresh Debian machine with Node 20: nats-server from Debian's
# packages (tests start their own servers from it) and the npm packages pinned by package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# nats-server: every test starts its own. prometheus (with promtool): the alert rules are checked and
# unit-tested in CI, and the monitoring test scrapes the running stack with a real Prometheus.
missing=()
command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
# tmux: the CLI's end-to-end test drives `gw` through a real terminal.
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install: ${missing[*]} (Debian packages)"
  as_root apt-get update -q
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "install: Node 20 or newer is required (found $(node -v))" >&2
  exit 1
fi

# `npm install`, not `npm ci`: with this machine's npm setting omit-lockfile-registry-resolved, the lockfile
# carries no entries for other platforms' optional binaries and `npm ci` refuses it as out of sync. `npm install`
# still installs exactly the versions the lockfile pins (checked: it leaves package-lock.json unchanged).
echo "install: npm packages (pinned by package-lock.json)"
npm install --no-audit --no-fund
