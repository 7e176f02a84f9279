#!/usr/bin/env bash
# Gateway vs twemproxy (nutcracker), same machine, same run: starts 2 redis-server
# shards, the gateway (Redis backend) and twemproxy (ketama, redis: true, 512-byte
# mbufs: harness.sh's start_nutcracker) in front of them, and runs redis-benchmark with 50 clients, 64-byte values, 100k keys:
# SET, GET, one hot key and a 10-key MGET, each at pipeline 1 and 16. Before
# the proxies start, every one of the 100k keys is set on every shard, so a
# GET finds its key whichever shard the proxy places it on (twemproxy and the
# gateway place keys differently). No row sets the hot key: every proxy
# answers its GETs null (respfloor, which answers every GET with a value,
# sends its 64 bytes).
# For each row it reports ops/s, p50/p99 (ms), backend commands executed per
# client request (INFO commandstats on the shards) and proxy CPU per op.
#
#   examples/gateway/compare.sh            # N=100000 requests per row
#   N=20000 examples/gateway/compare.sh    # quicker
#   CACHE=50000 examples/gateway/compare.sh
#       # adds "gw+cache": a second gateway with the caching tier on (50,000
#       # entries per shard), on 2 shards of its own (the keyspace notifications
#       # it turns on would otherwise cost the other proxies' shards CPU)
#   CACHE=50000 CACHE_WARM=1 examples/gateway/compare.sh
#       # the same, with an untimed pass of 300,000 GETs (each of the 100k
#       # keys read 3 times on average, whatever N) through gw+cache before
#       # its GET and MGET rows: without it those rows start on a cache the
#       # SET row before them emptied, and measure mostly its fills
#   GOREDIS=1 examples/gateway/compare.sh
#       # adds "gw+goredis": a second gateway on the same shards whose data path
#       # uses go-redis (a pooled connection, a write and a read per batch)
#       # instead of the default rueidis (auto-pipelined: concurrent batches
#       # share a connection and a write)
#   GW_PROCS=1 examples/gateway/compare.sh
#       # runs the gateways with GOMAXPROCS=1, one thread of Go code like
#       # twemproxy's one thread, on a machine whose cores the benchmark and
#       # the shards share
#   ONE_P=0 examples/gateway/compare.sh
#       # leaves out "gw-1P": by default a second plain gateway on the same
#       # shards runs with -procs 1 (GOMAXPROCS=1) beside the default one,
#       # so every run shows both settings against twemproxy
#   TW_MBUF=16384 examples/gateway/compare.sh
#       # twemproxy with its default 16 KB mbufs, as every run before
#       # twemproxy_mbuf_ab.txt ran it: about twice its CPU per op at
#       # pipeline 16 (twemproxy_mbuf_ab.txt), where it copies the rest of
#       # each read after every pipelined reply it parses
#   RUNQ=1 examples/gateway/compare.sh
#       # adds a column, runq_us/op: the time the proxy's threads spent
#       # runnable but waiting for a core during the row (Linux schedstats),
#       # per op. On 2 cores shared with redis-benchmark a proxy with two
#       # busy threads waits there where twemproxy's one thread does not
#       # (HISTORY.md, "Forty-seventh session")
#   PIPES=1 ROWS="get hot" examples/gateway/compare.sh
#       # only those pipeline depths and workloads (default: 1 16 and
#       # set get hot mget10), for a quick reading while the machine is in
#       # one state
#   FLOOR=1 examples/gateway/compare.sh
#       # adds "respfloor" on the GET and hot-key rows: a redcon server that
#       # answers every GET with a fixed value (cmd/respfloor), the least a Go
#       # front end like the gateway's can cost, with no request path at all
#   EVFLOOR=1 examples/gateway/compare.sh
#       # adds "evfloor" on the SET, GET and hot-key rows: a one-thread epoll
#       # loop in Go that forwards GET and SET to the same shards with the
#       # gateway's batching (cmd/evfloor, Linux), the least an event-loop
#       # front end would cost
#
# A row redis-benchmark could not finish (or whose warm-up failed) is shown
# as failed and the others still run; the script then exits 1.
#
# Needs redis-server, redis-benchmark and nutcracker, which it installs when
# missing (scripts/setup.sh nutcracker: root or sudo; like every run of setup.sh
# it also installs what the tests need when missing, gcc and chromium among
# them); loopback only.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-100000}
# A name the rows' case below does not know would run with the arguments of
# the row before it (or redis-benchmark's default tests) and print their
# figures under that name: refuse it before starting anything.
ROWS=${ROWS:-set get hot mget10}
for wl in $ROWS; do
	case $wl in set | get | hot | mget10) ;; *) echo "compare: ROWS takes set, get, hot and mget10, not $wl" >&2; exit 2 ;; esac
done
# CACHE too: -gt on a value that is not a number (CACHE=50k) only warns and
# is false, and the run went on without the gw+cache rows asked for.
CACHE=${CACHE:-0}
case $CACHE in '' | *[!0-9]*) echo "compare: CACHE is a number of entries (0: no caching tier), not '$CACHE'" >&2; exit 2 ;; esac
runq=${RUNQ:-0}
case $runq in 0 | 1) ;; *) echo "compare: RUNQ is 0 or 1, not '$runq'" >&2; exit 2 ;; esac
source examples/gateway/harness.sh # before setup.sh: it adds the sbin folders to PATH
scripts/setup.sh nutcracker >&2 || { echo "compare: scripts/setup.sh could not install what it needs (nutcracker, redis)" >&2; exit 1; }
harness_init

pick_port r1; pick_port r2
r3=; r4=
if [ "$CACHE" -gt 0 ]; then pick_port r3; pick_port r4; fi
start_redis $r1 $r2 $r3 $r4
# Every key the rows name (-r $keyspace) on every shard, so every proxy's GET
# and MGET rows read a full keyspace wherever it places a key (fill_keys).
keyspace=100000
fill_keys "$keyspace" $r1 $r2 $r3 $r4

(cd examples && go build -o "$work/gateway" ./gateway && go build -o "$work/respfloor" ./gateway/cmd/respfloor && go build -o "$work/c2c" ./gateway/cmd/c2c)
ev=; evpid=
if [ "${EVFLOOR:-0}" = 1 ]; then
	(cd examples && go build -o "$work/evfloor" ./gateway/cmd/evfloor)
	pick_port ev
	"$work/evfloor" -addr "127.0.0.1:$ev" -redis "127.0.0.1:$r1,127.0.0.1:$r2" 2>"$work/evfloor.log" &
	evpid=$!; pids+=($evpid)
fi
fl=; flpid=
if [ "${FLOOR:-0}" = 1 ]; then
	pick_port fl
	"$work/respfloor" -addr "127.0.0.1:$fl" 2>"$work/respfloor.log" &
	flpid=$!; pids+=($flpid)
fi
pick_port gw
# Admission is set not to throttle (target CPU 1.0, a limit above the
# benchmark's 50 x 16 x 10 keys in flight): on 2 shared cores the benchmark
# saturates the CPU, and the gateway would otherwise shed what twemproxy, which
# has no admission control, simply queues.
echo '{"target_cpu": 1.0, "max_limit": 100000}' >"$work/gateway.json"
gwenv=(env)
[ -n "${GW_PROCS:-}" ] && gwenv=(env "GOMAXPROCS=$GW_PROCS")
# GW_PROCS=n runs the gateways with GOMAXPROCS=n (default: the Go runtime's).
"${gwenv[@]}" "$work/gateway" -config "$work/gateway.json" -addr "127.0.0.1:$gw" -http - -redis "127.0.0.1:$r1,127.0.0.1:$r2" 2>"$work/gateway.log" &
gwpid=$!; pids+=($gwpid)
gwc=; gwcpid=
if [ "$CACHE" -gt 0 ]; then
	pick_port gwc
	echo "{\"target_cpu\": 1.0, \"max_limit\": 100000, \"cache_capacity\": $CACHE}" >"$work/gateway-cache.json"
	"${gwenv[@]}" "$work/gateway" -config "$work/gateway-cache.json" -addr "127.0.0.1:$gwc" -http - -redis "127.0.0.1:$r3,127.0.0.1:$r4" 2>"$work/gateway-cache.log" &
	gwcpid=$!; pids+=($gwcpid)
fi

gw1=; gw1pid=
if [ "${ONE_P:-1}" = 1 ]; then
	pick_port gw1
	"$work/gateway" -config "$work/gateway.json" -procs 1 -addr "127.0.0.1:$gw1" -http - -redis "127.0.0.1:$r1,127.0.0.1:$r2" 2>"$work/gateway-1p.log" &
	gw1pid=$!; pids+=($gw1pid)
fi

gwf=; gwfpid=
if [ "${GOREDIS:-0}" = 1 ]; then
	pick_port gwf
	"${gwenv[@]}" "$work/gateway" -config "$work/gateway.json" -addr "127.0.0.1:$gwf" -http - -redis "127.0.0.1:$r1,127.0.0.1:$r2" -redis-client go-redis 2>"$work/gateway-goredis.log" &
	gwfpid=$!; pids+=($gwfpid)
fi

pick_port tw
nutcracker_conf "$work/nutcracker.yml" "$tw" "$r1" "$r2"
pick_port tws
start_nutcracker "$work/nutcracker.yml" "$tws" "$work/nutcracker.log" # 512-byte mbufs (harness.sh)
wait_port "$gw" "$gwpid"
[ -n "$gwc" ] && wait_port "$gwc" "$gwcpid"
[ -n "$gwf" ] && wait_port "$gwf" "$gwfpid"
[ -n "$gw1" ] && wait_port "$gw1" "$gw1pid"
[ -n "$fl" ] && wait_port "$fl" "$flpid"
[ -n "$ev" ] && wait_port "$ev" "$evpid"
wait_port "$tw" "$twpid" # twemproxy answers PING itself
for p in $gwpid $twpid $gwcpid $gwfpid $gw1pid; do
	kill -0 "$p" 2>/dev/null || { echo "compare: a proxy did not start:" >&2; tail -n 3 "$work"/gateway*.log "$work"/nutcracker.log >&2; exit 1; }
done

tick=$(getconf CLK_TCK)
keys=""; for _ in $(seq 10); do keys="$keys key:__rand_int__"; done
failed=0

# The time a cache line takes between the two cores moves within minutes on
# the VMs this runs on (cmd/c2c), and the gateway's hand-offs between
# goroutines pay it: printed before and after the rows, to read a run with.
echo "before the rows: $("$work/c2c" || echo "core-to-core round trip: not measured")"
if [ "$runq" = 1 ]; then
	printf '%-10s %-10s %-3s %12s %8s %8s %14s %14s %14s\n' proxy workload P ops/s p50_ms p99_ms backend/req cpu_us/op runq_us/op
else
	printf '%-10s %-10s %-3s %12s %8s %8s %14s %14s\n' proxy workload P ops/s p50_ms p99_ms backend/req cpu_us/op
fi
for P in ${PIPES:-1 16}; do
	for wl in $ROWS; do
		proxies="twemproxy gateway"
		[ -n "$gw1" ] && proxies="$proxies gw-1P"
		[ -n "$gwf" ] && proxies="$proxies gw+goredis"
		[ -n "$gwc" ] && proxies="$proxies gw+cache"
		[ -n "$fl" ] && { [ "$wl" = get ] || [ "$wl" = hot ]; } && proxies="$proxies respfloor"
		[ -n "$ev" ] && [ "$wl" != mget10 ] && proxies="$proxies evfloor"
		for proxy in $proxies; do
			port=$tw; pid=$twpid; shards="$r1 $r2"
			[ "$proxy" = gateway ] && { port=$gw; pid=$gwpid; }
			[ "$proxy" = gw-1P ] && { port=$gw1; pid=$gw1pid; }
			[ "$proxy" = gw+goredis ] && { port=$gwf; pid=$gwfpid; }
			[ "$proxy" = gw+cache ] && { port=$gwc; pid=$gwcpid; shards="$r3 $r4"; }
			[ "$proxy" = respfloor ] && { port=$fl; pid=$flpid; }
			[ "$proxy" = evfloor ] && { port=$ev; pid=$evpid; }
			case $wl in
			set) args=(-t set -r "$keyspace") ;;
			get) args=(-t get -r "$keyspace") ;;
			hot) args=(-t get) ;; # no -r: every GET reads the one key "key:__rand_int__", which is missing
			mget10) args=(-r "$keyspace" mget $keys) ;;
			esac
			if [ "$proxy" = gw+cache ] && [ "${CACHE_WARM:-0}" = 1 ] && { [ "$wl" = get ] || [ "$wl" = mget10 ]; }; then
				# untimed: read every key a few times, so the row measures the
				# tier's steady state; the count follows the keyspace, not N (3N
				# GETs at N=20000 would leave more than half the keys unread).
				# A warm-up that failed would leave the row cold under a warm
				# label: the row is reported failed instead.
				if ! bench "$pid" -p "$port" -c 50 -n 300000 -d 64 -P 16 -t get -r "$keyspace" -q >/dev/null 2>"$work/bench.err"; then
					printf '%-10s %-10s %-3s failed: the warm-up: %s\n' "$proxy" "$wl" "$P" "$(grep -m1 -i error "$work/bench.err" || echo "redis-benchmark failed")"
					failed=$((failed + 1))
					continue
				fi
			fi
			c0=$(settled_ticks "$pid")
			calls0=$(backend_calls $shards)
			q0=$(runq_ns "$pid")
			out=$(bench "$pid" -p "$port" -c 50 -n "$N" -d 64 -P "$P" --csv "${args[@]}" 2>"$work/bench.err" || true)
			q1=$(runq_ns "$pid")
			c1=$(settled_ticks "$pid")
			calls=$(($(backend_calls $shards) - calls0))
			rps=; p50=; p99=
			read -r rps p50 p99 <<<"$(echo "$out" | bench_fields)" || true
			if [ -z "$rps" ]; then # redis-benchmark stops at the first error reply
				printf '%-10s %-10s %-3s failed: %s\n' "$proxy" "$wl" "$P" "$(grep -m1 -i error "$work/bench.err" || echo "no CSV row with rps, p50 and p99 in ms")"
				failed=$((failed + 1))
				continue
			fi
			printf '%-10s %-10s %-3s %12s %8s %8s %14.3f %14.2f' "$proxy" "$wl" "$P" "$rps" "$p50" "$p99" \
				"$(echo "$calls $N" | awk '{print $1/$2}')" \
				"$(echo "$c0 $c1 $tick $N" | awk '{print ($2-$1)/$3*1e6/$4}')"
			if [ "$runq" = 1 ]; then
				printf ' %14s' "$(echo "$q0 $q1 $N" | awk '$1 == "-" || $2 == "-" { print "-"; next } { printf "%.2f", ($2-$1)/1e3/$3 }')"
			fi
			echo
		done
	done
done
echo "after the rows: $("$work/c2c" || echo "core-to-core round trip: not measured")"
if [ "$failed" -gt 0 ]; then
	echo "compare: $failed row(s) failed" >&2
	exit 1
fi
