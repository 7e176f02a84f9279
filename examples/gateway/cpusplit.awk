# Reads `perf script` output of a cpu-clock profile at 2 kHz (blank lines
# between samples, one indented frame per line, innermost first) and prints
# the CPU per request (n requests) by the system call each sample's stack is
# in, kernel work outside any call, and user code. Used by syscalls.sh.
function bucket(s) {
	if (s ~ /ksys_write|do_writev|__x64_sys_write|__x64_sys_sendto/) return "write"
	if (s ~ /ksys_read|__x64_sys_read|__x64_sys_recvfrom|do_readv/) return "read"
	if (s ~ /do_epoll_wait|__x64_sys_epoll_pwait|__x64_sys_epoll_wait/) return "epoll_wait"
	if (s ~ /do_epoll_ctl|__x64_sys_epoll_ctl/) return "epoll_ctl"
	if (s ~ /__x64_sys_futex|do_futex/) return "futex"
	if (s ~ /nanosleep/) return "nanosleep"
	if (s ~ /do_syscall_64/) return "other call"
	if (s ~ /\[kernel/) return "kernel, no call"
	return "user"
}
function flush() {
	if (stack == "") return
	total++
	cnt[bucket(stack)]++
	if (stack ~ /runtime\.sysmon/) sysmon++
	stack = ""
}
/^[ \t]/ { stack = stack "\n" $0; next }
/^$/ { flush(); next }
END {
	flush()
	if (total == 0) { print "      no samples"; exit }
	for (b in cnt) printf "      %-16s %6.2f  (%4.1f%%)\n", b, cnt[b] / 2000 * 1e6 / n, 100 * cnt[b] / total
	if (sysmon) printf "      %-16s %6.2f  (%4.1f%%, within the lines above)\n", "sysmon thread", sysmon / 2000 * 1e6 / n, 100 * sysmon / total
	printf "      %-16s %6.2f\n", "total", total / 2000 * 1e6 / n
}
