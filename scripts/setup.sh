#!/usr/bin/env bash
# Installs what the tests and demos need on a fresh Debian machine: a C compiler (on
# Linux, go test -race needs cgo), redis-server and redis-tools (the tests start their
# own redis-server on free loopback ports), and chromium (the control plane's
# dashboard test drives it headless).
# Safe to run again: it installs only what is missing.
set -euo pipefail

need=()
cc=$(go env CC)
command -v "${cc%% *}" >/dev/null 2>&1 || need+=(gcc libc6-dev)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
	echo "setup: installing ${need[*]}"
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
