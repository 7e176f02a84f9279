package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/citest"
)

// TestHarnessNutcrackerMbuf: twemproxy copies what follows each message it
// parses out of a read into a new mbuf (mbuf_split), so a read full of
// pipelined replies costs it about the square of their count, and with its
// default 16 KB mbufs that copying was about half of its CPU per op in
// compare.sh's pipeline-16 rows (twemproxy_mbuf_ab.txt): the gateway's lead
// there was partly twemproxy's setting. start_nutcracker, which compare.sh
// and syscalls.sh start it with, runs it with 512-byte mbufs (-m, the least
// it takes; its notes recommend 512 or 1K bytes for many client
// connections), or TW_MBUF bytes, and records its pid in $twpid and $pids.
func TestHarnessNutcrackerMbuf(t *testing.T) {
	bash := harnessBash(t, "redis-cli", "redis-benchmark", "redis-server", "timeout")
	if !haveNutcracker() {
		citest.SkipOrFailInCI(t, "nutcracker is needed: run scripts/setup.sh nutcracker")
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc: the test reads nutcracker's arguments there")
	}
	for _, c := range []struct{ env, want string }{{"", "512"}, {"TW_MBUF=16384 ", "16384"}} {
		stdout, stderr, err := runHarness(t, bash, `set -euo pipefail # as the scripts run
pick_port shard; start_redis "$shard"
pick_port tw; pick_port tws
nutcracker_conf "$work/nutcracker.yml" "$tw" "$shard"
`+c.env+`start_nutcracker "$work/nutcracker.yml" "$tws" "$work/nutcracker.log"
wait_port "$tw" "$twpid"
case " ${pids[*]} " in *" $twpid "*) echo "in pids" ;; esac
tr '\0' ' ' <"/proc/$twpid/cmdline"; echo
echo "set $(timeout 5 redis-cli -p "$tw" set key:000000000001 v)"`, 60*time.Second)
		require.NoError(t, err, "%s", stderr)
		assert.Contains(t, stdout, "in pids\n")
		assert.Contains(t, " "+stdout, " -m "+c.want+" ", "%q", c.env)
		assert.Equal(t, 1, strings.Count(stdout, "-m "), "one -m: %s", stdout)
		assert.Contains(t, stdout, "set OK\n", "twemproxy serves with it")
	}
}

// haveNutcracker reports whether nutcracker is in PATH or in a sbin folder
// harness.sh adds to it (Debian installs it in /usr/sbin).
func haveNutcracker() bool {
	if _, err := exec.LookPath("nutcracker"); err == nil {
		return true
	}
	for _, dir := range []string{"/usr/local/sbin", "/usr/sbin", "/sbin"} {
		if _, err := os.Stat(dir + "/nutcracker"); err == nil {
			return true
		}
	}
	return false
}
