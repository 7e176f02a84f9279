#!/usr/bin/env bash
# Prints callgrind instruction counts per call of the coalesce benchmarks at -cpu 1:
# for each benchmark, RUNS times (default 3), the instructions (I refs) of a run of
# BIG calls and of one of SMALL calls (defaults 220000 and 20000) and their
# difference over BIG-SMALL, which cancels the start-up. Run from the bench module:
#
#	go test -c -o coalesce.test ./coalesce/ && ./coalesce/callgrind.sh > coalesce/callgrind48.txt
#
# Arguments are -test.bench patterns (the default list is below); TEST_BIN names
# another test binary (for instance one built at an earlier commit).
set -euo pipefail

bin=${TEST_BIN:-./coalesce.test}
runs=${RUNS:-3}
big=${BIG:-220000}
small=${SMALL:-20000}
if [ $# -eq 0 ]; then
	set -- 'HotKey$/impl=tierkit$' 'HotKey$/impl=xsync$' 'HotKey$/impl=floor$' \
		'HotKey$/impl=yield$' 'HotKeyClosurePerCall$/impl=tierkit-DoWith$' \
		'HotKeyClosurePerCall$/impl=tierkit$' 'HotKeyClosurePerCall$/impl=xsync$' \
		'DistinctKeys$/impl=tierkit$' 'DistinctKeys$/impl=xsync$'
fi

# irefs PATTERN N: the I refs of one run of N calls
irefs() {
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin" -test.run '^$' -test.bench "$1" -test.cpu 1 -test.benchtime "${2}x" 2>&1 |
		sed -n 's/.*I *refs: *//p' | tr -d ,
}

echo "# $(go version); $(valgrind --version); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo "# GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind, -test.cpu 1; per call = (I refs of $big calls - I refs of $small calls) / $((big - small))"
for b in "$@"; do
	for r in $(seq "$runs"); do
		hi=$(irefs "$b" "$big")
		lo=$(irefs "$b" "$small")
		echo "$b run $r: ${big}x $hi ${small}x $lo per-call $(((hi - lo) / (big - small)))"
	done
done
