package main

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cpusplitSamples is `perf script` output of nine cpu-clock samples as
// syscalls.sh records them (perf record -g): a Go write's exit, the same
// exit switching away, libc's read in the entry code's thunk, libc's writev
// in do_syscall_64, an epoll_ctl in its own kernel function, a getpeername,
// a page fault in user code, user code, and Go's futex in its exit.
const cpusplitSamples = `gw 101  10.000001:     500000 cpu-clock: 
	ffffffff8223c926 do_syscall_64+0x46 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])
	            94ee internal/runtime/syscall/linux.Syscall6+0xe (/bin/gw)
	           a1cc6 syscall.Syscall+0x46 (/bin/gw)
	           a0cbb syscall.write+0x3b (/bin/gw)
	           b075f internal/poll.(*FD).Write+0x23f (/bin/gw)

gw 101  10.000002:     500000 cpu-clock: 
	ffffffff813aecd3 finish_task_switch.isra.0+0x93 ([kernel.kallsyms])
	ffffffff82247fc4 __schedule+0x3e4 ([kernel.kallsyms])
	ffffffff82248b73 schedule+0x23 ([kernel.kallsyms])
	ffffffff81424641 exit_to_user_mode_loop+0x51 ([kernel.kallsyms])
	ffffffff8223cb30 do_syscall_64+0x250 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])
	            94ee internal/runtime/syscall/linux.Syscall6+0xe (/bin/gw)
	           a1cc6 syscall.Syscall+0x46 (/bin/gw)
	           a0cbb syscall.write+0x3b (/bin/gw)

nutcracker 202  10.000003:     500000 cpu-clock: 
	ffffffff82252346 __x86_indirect_thunk_rax+0x6 ([kernel.kallsyms])
	           f82ad read+0xd (/usr/lib/x86_64-linux-gnu/libc.so.6)
	           1a2b3 conn_recv+0x33 (/usr/sbin/nutcracker)

nutcracker 202  10.000004:     500000 cpu-clock: 
	ffffffff8223c926 do_syscall_64+0x46 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])
	           fe1a0 __writev+0x20 (/usr/lib/x86_64-linux-gnu/libc.so.6)
	           1a2c4 conn_sendv+0x44 (/usr/sbin/nutcracker)

nutcracker 202  10.000005:     500000 cpu-clock: 
	ffffffff81500000 ep_insert+0x10 ([kernel.kallsyms])
	ffffffff81500100 do_epoll_ctl+0x20 ([kernel.kallsyms])
	ffffffff81500200 __x64_sys_epoll_ctl+0x30 ([kernel.kallsyms])
	ffffffff8223c926 do_syscall_64+0x46 ([kernel.kallsyms])
	           fe2b0 epoll_ctl+0xe (/usr/lib/x86_64-linux-gnu/libc.so.6)

nutcracker 202  10.000006:     500000 cpu-clock: 
	ffffffff81600000 __sys_getpeername+0x10 ([kernel.kallsyms])
	ffffffff81600100 __x64_sys_getpeername+0x20 ([kernel.kallsyms])
	ffffffff8223c926 do_syscall_64+0x46 ([kernel.kallsyms])
	           fe3c0 getpeername+0xb (/usr/lib/x86_64-linux-gnu/libc.so.6)

gw 101  10.000007:     500000 cpu-clock: 
	ffffffff8160a9f3 handle_mm_fault+0xd3 ([kernel.kallsyms])
	ffffffff82242576 exc_page_fault+0x176 ([kernel.kallsyms])
	ffffffff81000c82 asm_exc_page_fault+0x22 ([kernel.kallsyms])
	           887ab runtime.memclrNoHeapPointers+0x24b (/bin/gw)

gw 101  10.000008:     500000 cpu-clock: 
	          1138af github.com/tidwall/redcon.handle+0x26f (/bin/gw)
	           880c1 runtime.goexit.abi0+0x1 (/bin/gw)

gw 103  10.000009:     500000 cpu-clock: 
	ffffffff8223c926 do_syscall_64+0x46 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe+0x76 ([kernel.kallsyms])
	           1dfa7 runtime.futex.abi0+0x23 (/bin/gw)
	           1dfb0 runtime.notesleep+0x87 (/bin/gw)
`

// TestCPUSplitCallEntryExit: a sample in a system call's entry or exit has
// no frame of the call's kernel function, yet it is CPU of that call, named
// by the user frame that made it; only calls named by neither (getpeername
// here) are "other call". Before, the entry and exit of every write, read
// and futex went to "other call", 20% of twemproxy's samples in the
// thirty-second session's split.
func TestCPUSplitCallEntryExit(t *testing.T) {
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk")
	}
	cmd := exec.Command(awk, "-v", "n=1", "-f", "cpusplit.awk")
	cmd.Stdin = strings.NewReader(cpusplitSamples)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())
	got := map[string]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// "      write            1000.00  (22.2%)": the bucket is the text
		// before the first number.
		f := strings.Fields(line)
		for i, w := range f {
			if v, err := strconv.ParseFloat(w, 64); err == nil {
				got[strings.Join(f[:i], " ")] = v
				break
			}
		}
	}
	// One sample is 500 µs of CPU (2 kHz), and n=1 request.
	assert.Equal(t, map[string]float64{
		"write":           1500,
		"read":            500,
		"epoll_ctl":       500,
		"futex":           500,
		"other call":      500,
		"kernel, no call": 500,
		"user":            500,
		"total":           4500,
	}, got, "%s", out)
}
