#!/usr/bin/env bash
# Runs every test of every module (root, examples, bench) with the race detector,
# plus a 32-bit run of the root module. This is the README's test command and what
# .ci/run calls. It installs what the tests need (scripts/setup.sh) when missing,
# nutcracker too: the tests of the scripts' sbin lookup need Debian's
# /usr/sbin/nutcracker, and fail without it under CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh nutcracker

# Each heading carries the seconds since this script started (bash's
# SECONDS: no command, so the tests' stubbed PATH needs none), so that a slow
# run shows which step took its time (CI's budget is 20 minutes).
heading() { echo "== [$SECONDS s] $*"; }

# gotest CAP ARGS...: go test ARGS with a -timeout of CAP seconds per test
# binary. Under TIERKIT_TEST_DEADLINE (Unix seconds, set by .ci/run) each
# binary gets CAP or what is left until the deadline at its own start, if
# that is less (scripts/testexec.sh, run by go test -exec), so that a hang late
# in the run still ends with its goroutine dump within CI's budget: go test's
# -timeout counts from each binary's start, so one computed when a go test of
# many packages starts does not bound a package that starts late. Never under
# a minute (-timeout 0 would mean none), nor above CAP; CAP 0 means no cap.
testexec="'$(pwd)/scripts/testexec.sh'"
gotest() {
	local cap=$1
	shift
	TIERKIT_TEST_CAP=$cap go test -exec "$testexec" -timeout "${cap}s" "$@"
}

status=0
for mod in . examples bench; do
	heading "go test -race ./... in $mod"
	if [ "$mod" = examples ]; then
		# The cluster scenarios judge CPU signals of 6 gateway processes on
		# these 2 cores: they run alone, after the other packages, rather
		# than beside them (other packages' tests would heat both regions).
		# The cluster runs even when another package failed, so that one
		# run reports on both.
		(cd examples && gotest 900 -race -count=1 $(go list ./... | grep -v '/examples/cluster$')) || status=1
		heading "go test -race ./cluster in examples (alone)"
		(cd examples && gotest 900 -race -count=1 ./cluster) || status=1
		# A test that skips itself under -race (examples/overload's
		# TestClosedLoop and TestREADMESimulationResult: single-threaded
		# models, 50-70 s each there) runs once without it, or no run of
		# this script would reach it: the benchmark pass below runs no test
		# (scripts' test of this script finds every such test of the three
		# modules).
		heading "go test -run 'TestClosedLoop|TestREADMESimulationResult' ./overload in examples (skipped under -race)"
		(cd examples && gotest 300 -count=1 -run '^(TestClosedLoop|TestREADMESimulationResult)$' ./overload) || status=1
		continue
	fi
	(cd "$mod" && gotest 900 -race -count=1 ./...) || status=1
	if [ "$mod" = . ]; then
		# Likewise shed's allocation tests (the race detector allocates on
		# its own): the 386 run below is without -race, but it does not run
		# where the kernel cannot execute 386 binaries, and there nothing
		# else did.
		heading "go test -run 'Allocs' ./shed in . (skipped under -race)"
		gotest 300 -count=1 -run '^(TestFastPathAllocsManyTenants|TestShedderQueuedHandOffAllocs)$' ./shed || status=1
	fi
done

heading "go test -run '^\$' -bench . -benchtime 1x ./... in . examples bench"
# Each benchmark once: the peer harnesses check their answers inside the
# benchmark loop, which go test without -bench never runs, so a harness that
# broke (or stopped doing its work) would pass CI until someone measured.
# About two minutes in all; the benchmarks' lines are shown only on failure.
for mod in . examples bench; do
	heading "benchmarks once in $mod"
	if out=$(cd "$mod" && gotest 600 -count=1 -run '^$' -bench . -benchtime 1x ./... 2>&1); then
		printf '%s\n' "$out" | grep -E '^(ok|FAIL|---)' || true
	else
		printf '%s\n' "$out"
		status=1
	fi
done

heading "GOARCH=386 go test ./... in . (atomics alignment, 32-bit ints)"
# Some kernels cannot run 32-bit binaries (no IA32 emulation: "exec format
# error"), and the Go runtime does not run under qemu-user. There the root
# module's tests are built for 386 and vetted, which catches what the compiler
# can (constants that overflow int, 32-bit-only type errors), and the run is
# reported as not done.
#
# probe386 BIN: runs the 386 test binary BIN with no test. Returns 0 when it
# ran, 1 when the kernel cannot execute it: bash's exit status 126 or ENOEXEC's
# "Exec format error". Any other failure (a crash of the 32-bit runtime or of
# the package's init at start-up) is a real one, which a machine that cannot
# run 386 binaries would hide as "NOT run" in a run that passes: it prints
# BIN's output and returns 2.
probe386() {
	local out rc=0
	out=$("$1" -test.run '^$' 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || return 0
	if [ "$rc" -eq 126 ] || [[ $out == *[Ee]"xec format error"* ]]; then
		return 1
	fi
	printf '%s\n' "$out" >&2
	echo "the 386 probe (internal/leak's test binary) failed with exit status $rc" >&2
	return 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
probe=1
if GOARCH=386 go test -c -o "$tmp/probe.test" ./internal/leak >/dev/null 2>&1; then
	probe=0
	probe386 "$tmp/probe.test" || probe=$?
fi
if [ "$probe" -ne 1 ]; then
	# After a failed probe the tests still run, to show which packages fail.
	[ "$probe" -eq 0 ] || status=1
	GOARCH=386 gotest 600 -count=1 ./... || status=1
else
	echo "this machine cannot run 386 binaries: building and vetting the 386 tests instead (NOT run)"
	# go test -c -o DIR/ refuses two packages of one name (batcher's and
	# coalesce's panicniltest): each round builds at most one package of a
	# name, into a folder of its own.
	if pkgs=$(GOARCH=386 go list ./...); then
		declare -A nth=()
		rounds=()
		for pkg in $pkgs; do
			r=$((${nth[${pkg##*/}]:-0} + 1))
			nth[${pkg##*/}]=$r
			rounds[r]+=" $pkg"
		done
		for r in "${!rounds[@]}"; do
			mkdir "$tmp/$r"
			GOARCH=386 go test -c -o "$tmp/$r/" ${rounds[r]} || status=1
		done
	else
		status=1
	fi
	GOARCH=386 go vet ./... || status=1
fi

heading "done"
exit $status
