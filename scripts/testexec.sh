#!/usr/bin/env bash
# The go test -exec program of scripts/test.sh: runs a test binary ("$@").
# Under TIERKIT_TEST_DEADLINE (Unix seconds, set by .ci/run) it cuts the
# binary's -test.timeout to TIERKIT_TEST_CAP seconds or what is left until the
# deadline at this binary's start, whichever is less, never under a minute
# (-timeout 0 would mean none) unless the cap is: a cap of 0 means none, as
# go test's -timeout 0 does, and the deadline alone bounds the binary.
# go test's own -timeout counts from each
# binary's start, so in a go test of many packages one that starts late, after
# the builds and tests before it, could hang past the deadline, and CI would
# end the run before its goroutine dump.
set -euo pipefail
if [ -n "${TIERKIT_TEST_DEADLINE:-}" ] && [ -n "${TIERKIT_TEST_CAP:-}" ]; then
	left=$((TIERKIT_TEST_DEADLINE - $(date +%s)))
	floor=60
	if [ "$TIERKIT_TEST_CAP" -gt 0 ]; then
		if [ "$left" -gt "$TIERKIT_TEST_CAP" ]; then left=$TIERKIT_TEST_CAP; fi
		# The floor keeps a binary from a timeout of 0 or less, not above
		# its cap: a cap of 30 s stays 30 s, as it is without a deadline.
		if [ "$TIERKIT_TEST_CAP" -lt "$floor" ]; then floor=$TIERKIT_TEST_CAP; fi
	fi
	if [ "$left" -lt "$floor" ]; then left=$floor; fi
	# The last -test.timeout given wins over go test's.
	set -- "$@" "-test.timeout=${left}s"
fi
exec "$@"
