#!/usr/bin/env bash
# Runs every test of every module (root, examples, bench) with the race detector,
# plus a 32-bit run of the root module. This is the README's test command and what
# .ci/run calls. It installs what the tests need (redis-server) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

status=0
for mod in . examples bench; do
	echo "== go test -race ./... in $mod"
	(cd "$mod" && go test -race -count=1 -timeout 15m ./...) || status=1
done

echo "== GOARCH=386 go test ./... in . (atomics alignment, 32-bit ints)"
GOARCH=386 go test -count=1 -timeout 10m ./... || status=1

exit $status
