#!/usr/bin/env bash
# System calls per request: starts 2 redis-server shards, twemproxy (ketama,
# redis: true), the gateway with the Go runtime's default Ps and a second one
# with -procs 1, and runs one redis-benchmark row (50 clients, 64-byte values)
# against each under `perf stat` on the kernel's syscall tracepoints. Per
# proxy it prints ops/s, the proxy's CPU per op and each system call's count
# per request: where a proxy's CPU goes that a profile of its own code does
# not show (the futex and nanosleep calls of Go's scheduler, the reads that
# find a socket empty). Before the proxies start, each of the 100k keys the
# rows name is set on every shard (harness.sh's fill_keys), as compare.sh
# does: a GET finds its 64-byte value whichever shard a proxy places it on,
# and every proxy's SET row overwrites (the hot key stays unset).
#
#   examples/gateway/syscalls.sh                      # GET, pipeline 1, N=50000
#   WL=set P=16 N=200000 examples/gateway/syscalls.sh
#   SPLIT=1 examples/gateway/syscalls.sh
#       # a second pass per proxy under `perf record -e cpu-clock -g` (2 kHz):
#       # its CPU per request split by the system call each sample's stack
#       # is in (write, read, epoll, futex, nanosleep, another call), kernel
#       # work outside any call, and user code; the Go scheduler's sysmon
#       # thread is shown on its own line too (a share of the others)
#
# Needs redis-server, redis-benchmark (scripts/setup.sh), nutcracker
# (apt-get install nutcracker) and perf (apt-get install linux-perf) with
# the syscalls tracepoints readable (root); loopback only.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-50000} P=${P:-1} WL=${WL:-get}
source examples/gateway/harness.sh # first: it adds the sbin folders to PATH
for c in nutcracker perf redis-benchmark redis-server; do
	command -v "$c" >/dev/null || { echo "syscalls: $c is not installed" >&2; exit 1; }
done
perf stat -e syscalls:sys_enter_read true >/dev/null 2>&1 || { echo "syscalls: perf cannot read the syscalls tracepoints here" >&2; exit 1; }
harness_init

pick_port r1; pick_port r2
start_redis "$r1" "$r2"
# Without it every GET row read empty shards (every reply null, not the
# 64-byte values compare.sh's GET rows read), and twemproxy's SET row, the
# first, created keys that the gateways' rows then overwrote.
keyspace=100000
fill_keys "$keyspace" "$r1" "$r2"
(cd examples && go build -o "$work/gateway" ./gateway)
echo '{"target_cpu": 1.0, "max_limit": 100000}' >"$work/gateway.json" # as compare.sh: admission never throttles
pick_port gw; pick_port gw1; pick_port tw; pick_port tws
"$work/gateway" -config "$work/gateway.json" -addr "127.0.0.1:$gw" -http - -redis "127.0.0.1:$r1,127.0.0.1:$r2" 2>"$work/gateway.log" &
gwpid=$!; pids+=($gwpid)
"$work/gateway" -config "$work/gateway.json" -procs 1 -addr "127.0.0.1:$gw1" -http - -redis "127.0.0.1:$r1,127.0.0.1:$r2" 2>"$work/gateway-1p.log" &
gw1pid=$!; pids+=($gw1pid)
nutcracker_conf "$work/nutcracker.yml" "$tw" "$r1" "$r2"
start_nutcracker "$work/nutcracker.yml" "$tws" "$work/nutcracker.log" # 512-byte mbufs (harness.sh)
# twemproxy answers PING itself: wait_port also fails at once, with the
# logs, when a proxy exits at start (perf could then attach to nothing).
wait_port "$gw" "$gwpid"; wait_port "$gw1" "$gw1pid"; wait_port "$tw" "$twpid"

case $WL in
set) args=(-t set -r "$keyspace") ;;
get) args=(-t get -r "$keyspace") ;;
hot) args=(-t get) ;;
*) echo "syscalls: WL is set, get or hot" >&2; exit 2 ;;
esac
events=""
for s in read write writev readv recvfrom sendto epoll_wait epoll_pwait epoll_ctl futex nanosleep sched_yield getpeername; do
	events="$events${events:+,}syscalls:sys_enter_$s"
done
# stop_perf PID ends the perf of a row (SIGINT: it writes what it counted)
# and waits for it; it fails when perf had exited already (it could not
# attach, or the proxy it watched exited), its counts covering part of the
# row or none. The bare kill failed there, and set -e ended the script
# partway through its table.
stop_perf() {
	if kill -INT "$1" 2>/dev/null; then
		wait "$1" 2>/dev/null || true
		return 0
	fi
	wait "$1" 2>/dev/null || true
	return 1
}
tick=$(getconf CLK_TCK)
failed=0
echo "$WL at pipeline $P, 50 clients, N=$N; system calls per request (only those made)"
for proxy in twemproxy gateway gw-1P; do
	case $proxy in
	twemproxy) port=$tw pid=$twpid ;;
	gateway) port=$gw pid=$gwpid ;;
	gw-1P) port=$gw1 pid=$gw1pid ;;
	esac
	rm -f "$work/perf.txt" # not the row before's counts if this perf writes none
	perf stat -x, -e "$events" -p "$pid" -o "$work/perf.txt" &
	perfpid=$!
	sleep 0.3 # perf attaches
	c0=$(cpu_ticks "$pid")
	out=$(bench "$pid" -p "$port" -c 50 -n "$N" -d 64 -P "$P" --csv "${args[@]}" 2>/dev/null || true)
	c1=$(settled_ticks "$pid")
	perfok=1
	stop_perf "$perfpid" || perfok=0
	read -r rps _ _ <<<"$(echo "$out" | bench_fields)" || true
	[ -n "$rps" ] || failed=$((failed + 1)) # shown as "?": the script exits 1
	printf '%-10s ops/s %10s  cpu_us/op %6.2f\n' "$proxy" "${rps:-?}" "$(echo "$c0 $c1 $tick $N" | awk '{print ($2-$1)/$3*1e6/$4}')"
	[ -f "$work/perf.txt" ] && awk -F, -v n="$N" '$3 ~ /syscalls:sys_enter_/ && $1 + 0 > 0 { sub("syscalls:sys_enter_", "", $3); printf "    %-12s %7.3f\n", $3, $1 / n }' "$work/perf.txt"
	if [ "$perfok" = 0 ]; then
		echo "    perf exited before the row ended: its counts cover part of the row or none"
		failed=$((failed + 1))
	fi
	[ "${SPLIT:-0}" = 1 ] || continue
	rm -f "$work/perf.data"
	perf record -q -e cpu-clock -F 2000 -g -p "$pid" -o "$work/perf.data" 2>/dev/null &
	perfpid=$!
	sleep 0.3
	# A pass redis-benchmark could not finish made fewer than N requests:
	# its split, divided by N, would read low; it is shown, said so and
	# counted as failed, as a row is.
	out=$(bench "$pid" -p "$port" -c 50 -n "$N" -d 64 -P "$P" --csv "${args[@]}" 2>"$work/bench.err" || true)
	splitok=1
	read -r rps _ _ <<<"$(echo "$out" | bench_fields)" || true
	[ -n "$rps" ] || splitok=0
	stop_perf "$perfpid" || {
		echo "    perf record exited before the pass ended: its samples cover part of it or none"
		failed=$((failed + 1))
	}
	if [ "$splitok" = 0 ]; then
		echo "    the pass failed ($(grep -m1 -i error "$work/bench.err" || echo "redis-benchmark failed")): the split below covers part of its N requests or none"
		failed=$((failed + 1))
	fi
	# perf script fails on a perf.data that perf record never wrote (it
	# could not attach, or its proxy had exited): under set -e and pipefail
	# the bare pipeline ended the script there, before the other proxies'
	# rows and the summary. It is said, and counted as failed.
	if split=$(perf script -i "$work/perf.data" 2>"$work/perf-script.err" | awk -v n="$N" -f examples/gateway/cpusplit.awk); then
		echo "    CPU per request by where the samples are (us; 2,000 samples a second):"
		printf '%s\n' "$split"
	else
		echo "    perf script could not read the samples: $(head -n 1 "$work/perf-script.err")"
		failed=$((failed + 1))
	fi
done
if [ "$failed" -gt 0 ]; then
	echo "syscalls: redis-benchmark or perf failed on $failed row(s)" >&2
	exit 1
fi
