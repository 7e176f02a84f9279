# Loopback ports for compare.sh and ab.sh (sourced, not run).

lo=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
taken=" "
pick_port() { # sets $1 to a loopback port below the ephemeral range that nobody
	# listens on and no earlier pick took: the processes start in the
	# background, so a port picked before can still be free to connect to
	local cand
	while :; do
		cand=$((20000 + RANDOM % (lo - 20000)))
		case $taken in *" $cand "*) continue ;; esac
		(echo >/dev/tcp/127.0.0.1/$cand) 2>/dev/null && continue
		taken="$taken$cand "
		printf -v "$1" %s "$cand"
		return
	done
}
# wait_port waits up to 20 s for a server to answer PING on port $1.
wait_port() { for _ in $(seq 400); do redis-cli -p "$1" ping >/dev/null 2>&1 && return; sleep 0.05; done; echo "port $1 did not come up" >&2; exit 1; }
