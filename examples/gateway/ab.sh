#!/usr/bin/env bash
# Two (or more) gateway binaries side by side, same run, interleaved row by
# row: redis-benchmark GET and SET against each, 64-byte values, 100k keys;
# ops/s, p50/p99 (ms), gateway CPU per request and, on Redis shards, backend
# commands per request. Loopback only; admission set not to throttle.
#
#   examples/gateway/ab.sh memkv 20000 "2 50" "1" before-bin after-bin
#   examples/gateway/ab.sh redis 100000 "50" "1 16" before-bin after-bin
#   WL="mget get" examples/gateway/ab.sh redis ...   # workloads (default: get
#       set; mget is a 10-key MGET, hot a GET of one key); the keys are set
#       first (redis: all of them on every shard; memkv: a SET pass)
#   GWCONF='"cache_capacity": 50000' examples/gateway/ab.sh ...   # more config fields
#
# args: backend (memkv|redis), requests per row, client counts, pipeline
# depths, binaries. A row redis-benchmark could not finish is shown as
# failed and the others still run; the script then exits 1. Build a binary of an older revision with
#   d=$(mktemp -d); git archive REV | tar -x -C "$d"; (cd "$d/examples" && go build -o "$d/gw" ./gateway)
set -euo pipefail
# Four arguments and at least one binary: without a binary the run printed
# its table's header alone and exited 0, having measured nothing.
if [ $# -lt 5 ]; then
	echo "usage: ab.sh memkv|redis REQUESTS CLIENTS PIPELINES BINARY..." >&2
	exit 2
fi
mode=$1; N=$2; CL=$3; PL=$4; shift 4
bins=("$@")
# Any backend but redis ran on memkv, and its rows read like a Redis run's.
case $mode in memkv | redis) ;; *) echo "ab: the backend is memkv or redis, not $mode" >&2; exit 2 ;; esac
source "$(dirname "$0")/harness.sh"
harness_init
args=()
if [ "$mode" = redis ]; then
	pick_port r1; pick_port r2
	start_redis "$r1" "$r2"
	# Every key the rows name on every shard, before the binaries start, as
	# compare.sh does (fill_keys): each binary's GET and MGET rows then find
	# every key, however many binaries run and wherever each places a key.
	fill_keys 100000 "$r1" "$r2"
	args=(-redis "127.0.0.1:$r1,127.0.0.1:$r2")
fi
echo "{\"target_cpu\": 1.0, \"max_limit\": 100000${GWCONF:+, $GWCONF}}" >"$work/gw.json"
ports=(); gpids=()
for b in "${bins[@]}"; do
	pick_port p
	"$b" -config "$work/gw.json" -addr 127.0.0.1:$p -http - "${args[@]}" 2>"$work/gw-$p.log" &
	gpids+=($!); pids+=($!); ports+=($p)
	wait_port $p $!
done
tick=$(getconf CLK_TCK)
failed=0
printf '%-16s %-4s %-4s %-3s %10s %8s %8s %10s %12s\n' bin cmd c P ops/s p50_ms p99_ms cpu_us/op backend/req
keys=""; for _ in $(seq 10); do keys="$keys key:__rand_int__"; done
# On memkv each binary has its own store: a SET pass through each sets most
# keys that GET and MGET read (about 86%: 200,000 random SETs over 100k
# keys). On Redis the shards hold every key already (fill_keys above): the
# passes, through each binary in turn on the same shards, set about 86% of
# the keys with one binary and 98% with two, so the share the rows read
# depended on how many binaries ran. The hot key is never set: its GETs read
# a missing key, as in compare.sh.
if [ "$mode" = memkv ]; then for i in "${!ports[@]}"; do
	bench "${gpids[$i]}" -p "${ports[$i]}" -c 50 -n 200000 -d 64 -P 16 -r 100000 -t set -q >/dev/null 2>"$work/bench.err" || {
		echo "ab: the SET pass through $(basename "${bins[$i]}") failed: $(grep -m1 -i error "$work/bench.err" || echo "redis-benchmark failed")" >&2
		exit 1
	}
done; fi
for c in $CL; do for P in $PL; do for wl in ${WL:-get set}; do for i in "${!bins[@]}"; do
	port=${ports[$i]}; pid=${gpids[$i]}
	c0=$(settled_ticks $pid)
	calls0=0
	[ "$mode" = redis ] && calls0=$(backend_calls $r1 $r2)
	case $wl in
	mget) args=(-r 100000 mget $keys) ;;
	hot) args=(-t get) ;; # no -r: every GET reads the one key "key:__rand_int__", which is missing
	*) args=(-r 100000 -t $wl) ;;
	esac
	out=$(bench $pid -p $port -c $c -n $N -d 64 -P $P --csv "${args[@]}" 2>"$work/bench.err" || true)
	c1=$(settled_ticks $pid)
	calls=0
	[ "$mode" = redis ] && calls=$(($(backend_calls $r1 $r2) - calls0))
	rps=; p50=; p99=
	read -r rps p50 p99 <<<"$(echo "$out" | bench_fields)" || true
	if [ -z "$rps" ]; then # redis-benchmark stops at the first error reply
		printf '%-16s %-4s %-4s %-3s failed: %s\n' "$(basename "${bins[$i]}")" $wl $c $P \
			"$(grep -m1 -i error "$work/bench.err" || echo "no CSV row with rps, p50 and p99 in ms")"
		failed=$((failed + 1))
		continue
	fi
	printf '%-16s %-4s %-4s %-3s %10s %8s %8s %10.2f %12.3f\n' "$(basename "${bins[$i]}")" $wl $c $P "$rps" "$p50" "$p99" \
		"$(echo "$c0 $c1 $tick $N" | awk '{print ($2-$1)/$3*1e6/$4}')" "$(echo "$calls $N" | awk '{print $1/$2}')"
done; done; done; done
if [ "$failed" -gt 0 ]; then
	echo "ab: $failed row(s) failed" >&2
	exit 1
fi
