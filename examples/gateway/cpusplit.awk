# Reads `perf script` output of a cpu-clock profile at 2 kHz (blank lines
# between samples, one indented frame per line, innermost first) and prints
# the CPU per request (n requests) by the system call each sample's stack is
# in, kernel work outside any call, and user code. Used by syscalls.sh.
#
# A sample in a call's entry or exit (do_syscall_64 itself, the scheduler
# it calls on the way out, the entry code's thunks) has no frame of the
# call's own kernel function: its call is then the one the innermost user
# frame makes (libc's write, Go's syscall.write, runtime.futex), past the
# generic system call trampolines. Only a call named by neither goes to
# "other call".
function kernelcall(s) {
	if (s ~ /ksys_write|do_writev|__x64_sys_write|__x64_sys_sendto/) return "write"
	if (s ~ /ksys_read|__x64_sys_read|__x64_sys_recvfrom|do_readv/) return "read"
	if (s ~ /do_epoll_wait|__x64_sys_epoll_pwait|__x64_sys_epoll_wait/) return "epoll_wait"
	if (s ~ /do_epoll_ctl|__x64_sys_epoll_ctl/) return "epoll_ctl"
	if (s ~ /__x64_sys_futex|do_futex/) return "futex"
	if (s ~ /nanosleep/) return "nanosleep"
	return ""
}
# usercall: the call named by the innermost user frame of s that is not a
# generic trampoline (Go's Syscall6, syscall.Syscall, libc's syscall), or
# "" if that frame names none of the calls above.
function usercall(s,    lines, i, k, sym) {
	k = split(s, lines, "\n")
	for (i = 1; i <= k; i++) {
		if (lines[i] ~ /^[ \t]*$/ || lines[i] ~ /\[kernel/) continue
		sym = lines[i]
		sub(/^[ \t]*[0-9a-fA-F]+[ \t]+/, "", sym) # the address
		sub(/\+0x[0-9a-fA-F]+.*$/, "", sym)       # the offset and the object
		sub(/ \(.*$/, "", sym)                    # the object, when no offset
		sub(/\.abi0$/, "", sym)
		sub(/^.*[.\/]/, "", sym)                  # Go's package path
		if (sym ~ /[Ss]yscall/) continue
		if (sym ~ /^(__GI_)?(__)?(libc_)?(write|writev|pwrite64|send|sendto|sendmsg)$/) return "write"
		if (sym ~ /^(__GI_)?(__)?(libc_)?(read|readv|pread64|recv|recvfrom|recvmsg)$/) return "read"
		if (sym ~ /^(__GI_)?(__)?([Ee]poll_?[Pp]?[Ww]ait|epollwait)$/) return "epoll_wait"
		if (sym ~ /^(__GI_)?(__)?([Ee]poll_?[Cc]tl|epollctl)$/) return "epoll_ctl"
		if (sym ~ /futex/) return "futex"
		if (sym ~ /nanosleep|usleep/) return "nanosleep"
		return ""
	}
	return ""
}
function bucket(s,    b) {
	b = kernelcall(s)
	if (b != "") return b
	# In a call's entry or exit; or, with no interrupt or fault frame, in the
	# entry code before do_syscall_64 is on the stack.
	if (s ~ /do_syscall_64|entry_SYSCALL_64/ || (s ~ /\[kernel/ && s !~ /asm_exc_|asm_sysvec_|asm_common_interrupt|irq_exit/)) {
		b = usercall(s)
		if (b != "") return b
	}
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
