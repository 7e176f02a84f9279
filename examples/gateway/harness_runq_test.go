package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHarnessRunqNs: harness.sh's runq_ns sums the time a process's threads
// waited for a core. Two busy loops pinned to one core must each show such a
// wait (the script reads both until they do, within its deadline); a process
// that is gone reads "-", not 0, so a row never reports a wait it did not
// measure.
func TestHarnessRunqNs(t *testing.T) {
	bash := harnessBash(t, "taskset")
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("no schedstat here")
	}
	script := `source ./harness.sh
taskset -c 0 sh -c 'while :; do :; done' & a=$!
taskset -c 0 sh -c 'while :; do :; done' & b=$!
trap 'kill $a $b 2>/dev/null' EXIT
end=$((SECONDS + 10))
while [ "$SECONDS" -lt "$end" ]; do
	qa=$(runq_ns $a); qb=$(runq_ns $b)
	[ "$qa" != - ] && [ "$qb" != - ] && [ "$qa" -gt 0 ] && [ "$qb" -gt 0 ] && break
done
echo "$qa $qb"
kill $a $b; wait $a $b 2>/dev/null
echo "$(runq_ns $a)"`
	out, err := exec.Command(bash, "-c", script).CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 2, "%s", out)
	for _, f := range strings.Fields(lines[0]) {
		ns, err := strconv.ParseInt(f, 10, 64)
		require.NoError(t, err, "%s", out)
		assert.Positive(t, ns, "a busy loop sharing its core never waited: %s", out)
	}
	assert.Equal(t, "-", lines[1], "a process that is gone")
}

// TestCompareRefusesBadRunq: RUNQ takes 0 or 1; anything else stops the
// script before it starts a server.
func TestCompareRefusesBadRunq(t *testing.T) {
	out := scriptRefuses(t, []string{"RUNQ=yes", "N=100"}, "compare.sh")
	assert.Contains(t, out, "not 'yes'")
}
