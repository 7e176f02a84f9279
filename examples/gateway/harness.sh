# Shared by compare.sh, syscalls.sh and ab.sh (sourced, not run): set-up and clean-up, the shards, loopback ports, a
# process's CPU time, the shards' command counts, redis-benchmark's CSV, twemproxy's configuration and start.

# Debian installs nutcracker (and some tools of its kind) in /usr/sbin, which
# is not in the PATH of a user other than root: the scripts, and the
# scripts/setup.sh they run, look there too.
for sbin in /usr/local/sbin /usr/sbin /sbin; do
	case ":$PATH:" in *":$sbin:"*) ;; *) PATH=$PATH:$sbin ;; esac
done

# harness_init checks that redis-cli and redis-benchmark are installed (the
# scripts wait for their servers with the one and measure with the other),
# makes the scratch folder $work and the list $pids of the processes
# started, and kills them and removes the folder when the script exits.
harness_init() {
	local c
	for c in redis-cli redis-benchmark; do
		command -v "$c" >/dev/null || { echo "$c is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
	done
	work=$(mktemp -d)
	pids=()
	trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
}
# start_redis PORT...: a redis-server on each loopback port (no persistence,
# log in $work), added to $pids; then waits for each to answer (itself,
# not a server that took its port since pick_port: wait_port).
start_redis() {
	local p i=0 started=()
	command -v redis-server >/dev/null || { echo "redis-server is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
	for p in "$@"; do
		redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning >"$work/redis-$p.log" 2>&1 &
		pids+=($!); started+=($!)
	done
	for p in "$@"; do
		wait_port "$p" "${started[i]}"
		i=$((i + 1))
	done
}

# The kernel's ephemeral port range, from which it gives client sockets their
# ports: Linux's, the BSDs' and macOS's sysctl, or else 32768-65535 (it covers
# the defaults of Linux and macOS). pick_port picks outside it.
if ! read -r lo hi 2>/dev/null </proc/sys/net/ipv4/ip_local_port_range; then
	lo=$(sysctl -n net.inet.ip.portrange.first 2>/dev/null) || lo=
	hi=$(sysctl -n net.inet.ip.portrange.last 2>/dev/null) || hi=
fi
case "$lo $hi" in *[!0-9\ ]* | " "* | *" ") lo=32768 hi=65535 ;; esac
taken=" "
pick_port() { # sets $1 to a loopback port outside the ephemeral range that
	# nobody listens on and no earlier pick took: the processes start in the
	# background, so a port picked before can still be free to connect to.
	# It picks from 10000 up (clear of the usual services' ports), from 1024
	# up when that leaves fewer than 1000 ports, and anywhere from 1024 up,
	# with a warning, when the range leaves fewer than 100.
	local cand below above floor r
	for floor in 10000 1024; do
		below=$((lo > floor ? lo - floor : 0))
		above=$((hi < 65535 ? 65535 - hi : 0))
		if ((below + above >= 1000)); then break; fi
	done
	if ((below + above < 100)); then
		echo "pick_port: the ephemeral port range $lo-$hi leaves no room: picking in it" >&2
		floor=1024 below=$((65536 - 1024)) above=0
	fi
	for _ in $(seq 1000); do
		r=$(((RANDOM << 15 | RANDOM) % (below + above)))
		if ((r < below)); then cand=$((floor + r)); else cand=$((hi + 1 + r - below)); fi
		case $taken in *" $cand "*) continue ;; esac
		(echo >/dev/tcp/127.0.0.1/$cand) 2>/dev/null && continue
		taken="$taken$cand "
		printf -v "$1" %s "$cand"
		return
	done
	echo "pick_port: no free port in 1000 tries" >&2
	exit 1
}
# wait_port PORT [PID] waits up to 20 s for a server to answer PING on
# PORT, and, given PID, for that server to be process PID (listens_on): a
# port that pick_port saw free can be taken before the script's server
# binds it (by a server of another run beside this one), and PING then
# reached the other server while the script's exited, unable to bind, and
# the script measured, reset and flushed the other run's server. It fails
# at once, with the ends of the logs in $work, when a process of $pids has
# exited (a proxy that rejected its configuration, a port taken since
# pick_port): waiting out the 20 s would only hide why, as the clean-up
# removes the logs. Each PING has a second (timeout: redis-cli has none): a
# server that accepts and never answers, wedged or stopped, held redis-cli,
# and so the script, for ever. WAIT_PORT_SECS, if set, replaces the 20 s
# (the harness's tests use it: a wait for nothing need not take 20 s).
wait_port() {
	local p end=$((SECONDS + ${WAIT_PORT_SECS:-20}))
	while [ "$SECONDS" -lt "$end" ]; do
		timeout 1 redis-cli -p "$1" ping >/dev/null 2>&1 && { [ -z "${2:-}" ] || listens_on "$2" "$1"; } && return
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && continue
			echo "port $1 did not come up: process $p has exited" >&2
			tail -n 3 "$work"/*.log >&2 2>/dev/null || true
			exit 1
		done
		sleep 0.05
	done
	echo "port $1 did not come up" >&2
	exit 1
}
# listens_on PID PORT: whether process PID has a listening TCP socket on
# PORT, by the socket's inode in the kernel's table of them (Linux's /proc);
# true where there is no such table (it cannot tell).
listens_on() {
	local hex inode fd
	[ -r /proc/net/tcp ] || return 0
	printf -v hex ':%04X' "$2"
	for inode in $(awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $10 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null); do
		for fd in /proc/"$1"/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = "socket:[$inode]" ] && return 0
		done
	done
	return 1
}
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
settled_ticks() { # cpu_ticks once the process has gone quiet (at most 1 tick in 0.2 s,
	# for at most 3 s): work a row causes after its last reply, such as the
	# cache tier applying the change feed of a SET row, counts in that row
	# rather than in whichever row of that process runs next
	local prev cur
	prev=$(cpu_ticks "$1")
	for _ in $(seq 15); do
		sleep 0.2
		cur=$(cpu_ticks "$1")
		[ $((cur - prev)) -le 1 ] && break
		prev=$cur
	done
	echo "$cur"
}
# runq_ns PID: the nanoseconds process PID's threads have spent runnable but
# waiting for a core (the second field of each thread's schedstat: Linux with
# schedstats), summed over the threads it has now; "-" where the kernel does
# not give it. A thread that exits between the listing and the read is left
# out.
runq_ns() {
	local f a b c s=0 n=0
	for f in /proc/"$1"/task/*/schedstat; do
		[ -e "$f" ] || continue
		read -r a b c <"$f" 2>/dev/null || continue
		case $b in '' | *[!0-9]*) echo -; return ;; esac
		s=$((s + b)); n=$((n + 1))
	done
	if [ "$n" -eq 0 ]; then echo -; else echo "$s"; fi
}
# backend_calls SHARD_PORT...: the data commands the shards have executed in
# all (INFO commandstats); a row reads them before and after itself. Not
# CONFIG RESETSTAT before the row and the counts after: the reset clears the
# counts that a gateway's caching tier watches for CONFIG SET and flushes, and
# the tier empties its cache when they change, so every row started cold.
# It fails when a shard does not answer: in the command substitutions that
# call it set -e is off and the loop's status is its last redis-cli's, so a
# shard other than the last one that did not answer was left out of the
# sum, and the row showed fewer backend commands. Each INFO has 5 s
# (timeout: redis-cli has none): a shard that accepts and never answers
# held the row, and the script, for ever.
backend_calls() {
	local p
	for p in "$@"; do
		timeout 5 redis-cli -p "$p" info commandstats || { echo "backend_calls: shard $p did not answer INFO" >&2; exit 1; }
	done |
		{ grep -E '^cmdstat_(get|set|mget|mset|incrby|incr|del|exists|pttl)' || true; } |
		sed -E 's/^[^:]*:calls=([0-9]+),.*/\1/' | awk '{s+=$1} END {print s+0}'
}
# fill_keys COUNT SHARD_PORT...: sets every key redis-benchmark -r COUNT
# names (key:000000000000 on) to its -d 64 value on each shard, before the
# proxies start. twemproxy (ketama) and the gateway (its own hash ring) place
# a key on different shards about half the time: with the keys only where
# the SET rows put them, each proxy's GET and MGET rows found a different
# share of the keyspace (answering the rest null, which costs less), and the
# first proxy's SET row created the keys that the later ones overwrote. The
# hot key, the literal key:__rand_int__, stays unset. Each shard has 60 s
# (timeout: redis-cli has none); one that does not take the keys fails it.
fill_keys() {
	local n=$1 p
	shift
	for p in "$@"; do
		awk -v n="$n" 'BEGIN { v = sprintf("%64s", ""); gsub(/ /, "x", v)
			for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$64\r\n%s\r\n", i, v }' |
			timeout 60 redis-cli -p "$p" --pipe >/dev/null 2>&1 || { echo "fill_keys: shard $p did not take the keys" >&2; exit 1; }
	done
}
# bench PID ARG...: redis-benchmark ARG... (its output on stdout) against the
# proxy whose process is PID, unless that process has exited: then it says so
# on stderr and fails at once. redis-benchmark does not fail at a port nobody
# listens on: its clients fail to connect and it waits for their replies for
# ever, so a proxy that died in one row would hang the script at its next.
# Nor does it give up on a proxy that accepts and never answers, or one that
# dies after the check: each run has BENCH_TIMEOUT seconds (default 600, some
# hundred times a 100,000-request row at the slowest rate recorded), then it
# fails with an error line on stderr. --foreground keeps redis-benchmark in
# the terminal's process group, so Ctrl-C still reaches it.
bench() {
	local pid=$1 limit=${BENCH_TIMEOUT:-600} rc=0
	shift
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "error: the proxy (process $pid) has exited; see its log" >&2
		return 1
	fi
	timeout --foreground -k 5 "$limit" redis-benchmark "$@" || rc=$?
	case $rc in
	0) ;;
	124 | 137) echo "error: redis-benchmark did not finish in $limit s (BENCH_TIMEOUT): the proxy (process $pid) did not answer" >&2 ;;
	esac
	return "$rc"
}
bench_fields() { # ops/s, p50 and p99 (ms) of redis-benchmark --csv output, by the
	# header's column names; nothing if there is no header or no row after it
	awk -F'","' '$1 == "\"test" { ncol = NF; for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); col[$i] = i }; next }
		col["rps"] && col["p50_latency_ms"] && col["p99_latency_ms"] && NF == ncol {
			r = $col["rps"]; a = $col["p50_latency_ms"]; b = $col["p99_latency_ms"] }
		END { gsub(/"/, "", r); gsub(/"/, "", a); gsub(/"/, "", b); if (r != "") print r, a, b }'
}
# nutcracker_conf FILE PORT SHARD_PORT...: twemproxy's configuration as the
# comparisons run it, listening on loopback PORT, ketama over the shards in
# the order given (the order places the keys), redis: true, one connection
# per shard
nutcracker_conf() {
	local f=$1 port=$2 s
	shift 2
	{
		printf 'pool:\n  listen: 127.0.0.1:%s\n  hash: fnv1a_64\n  distribution: ketama\n  redis: true\n' "$port"
		printf '  auto_eject_hosts: false\n  server_connections: 1\n  servers:\n'
		for s in "$@"; do printf '    - 127.0.0.1:%s:1\n' "$s"; done
	} >"$f"
}
# start_nutcracker CONF STATS_PORT LOG: twemproxy in the background with the
# configuration CONF (nutcracker_conf), its stats on loopback STATS_PORT and
# its log in LOG; its pid in $twpid, added to $pids. Its mbufs are 512 bytes
# (-m, the least it takes), or TW_MBUF bytes. twemproxy copies what follows
# each message it parses out of a read into a new mbuf (mbuf_split), so a
# read of many pipelined messages costs it about the square of their count:
# with its default 16 KB mbufs, the pipeline-16 rows' replies on its one
# connection per shard cost it about twice the CPU per op
# (twemproxy_mbuf_ab.txt), a lead the gateway did not earn. Its notes
# recommend 512 or 1K bytes for many client connections; the comparisons'
# keys (16 bytes) and values (64) are far below what that bounds.
start_nutcracker() {
	nutcracker -c "$1" -a 127.0.0.1 -s "$2" -m "${TW_MBUF:-512}" -o "$3" &
	twpid=$!
	pids+=($twpid)
}
