#!/usr/bin/env bash
# Prints where the instructions of one coalesce benchmark go at -cpu 1, per call:
# callgrind_annotate's self count of every function in a run of BIG calls minus that
# in a run of SMALL calls (defaults 220000 and 20000), over BIG-SMALL, for the
# functions at 1 instruction per call or more, then the total and the Go runtime's
# part of it (functions named runtime.*, internal/runtime/*, and the assembly
# gogo and gosave_*). Run from the bench module:
#
#	go test -c -o coalesce.test ./coalesce/ && ./coalesce/callgrind_profile.sh > coalesce/callgrind_floor_profile48.txt
#
# The argument is a -test.bench pattern (default: the floor on the hot key).
set -euo pipefail

bin=${TEST_BIN:-./coalesce.test}
big=${BIG:-220000}
small=${SMALL:-20000}
bench=${1:-'HotKey$/impl=floor$'}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# selfcounts N: "function instructions" of one run of N calls, summed per function
selfcounts() {
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$dir/$1.out" \
		"$bin" -test.run '^$' -test.bench "$bench" -test.cpu 1 -test.benchtime "${1}x" >/dev/null 2>&1
	callgrind_annotate --auto=no --threshold=100 "$dir/$1.out" |
		sed -n 's/^ *\([0-9,][0-9,]*\) ([ 0-9.]*%)  \(.*\)$/\1 \2/p' | grep -v 'PROGRAM TOTALS' |
		sed 's/ \[[^]]*\]$//; s/^\([0-9,]*\) .*:\([^:]*\)$/\2 \1/' | tr -d , |
		awk '{s[$1] += $2} END {for (k in s) print k, s[k]}'
}

selfcounts "$big" >"$dir/big.txt"
selfcounts "$small" >"$dir/small.txt"
echo "# $(go version); $(valgrind --version); $bench, -test.cpu 1, GODEBUG=asyncpreemptoff=1"
echo "# instructions per call: (self count in $big calls - in $small calls) / $((big - small)), per function"
awk -v n=$((big - small)) 'NR == FNR { s[$1] = $2; next }
	{ d = ($2 - s[$1]) / n; t += d; if ($1 ~ /^(runtime\.|internal\/runtime|gogo|gosave)/) r += d
	  if (d >= 1) printf "%8.1f %s\n", d, $1 }
	END { printf "total %.1f per call; Go runtime %.1f (%.1f%%)\n", t, r, 100 * r / t }' \
	"$dir/small.txt" "$dir/big.txt" | sort -k1,1 -rn
