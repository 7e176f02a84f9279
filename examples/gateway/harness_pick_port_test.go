package main

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHarnessPickPortOutsideEphemeral: harness.sh's pick_port picks the
// scripts' listen ports outside the kernel's ephemeral range, where no client
// socket of the machine takes a port meanwhile. It picked from 20000 up to
// the range's first port, taking the range to start above 20000: where it
// starts at 20000 the script died on a division by zero, and where it starts
// lower (a host that widened it) every pick was inside it. The range's ends
// are set here as harness.sh reads them from the kernel.
func TestHarnessPickPortOutsideEphemeral(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, r := range []struct{ lo, hi int }{
		{32768, 60999}, // Linux's default
		{20000, 60999},
		{1024, 60999},  // room above the range only
		{10000, 65535}, // room below it only
		{49152, 65535}, // macOS's and the BSDs' default
	} {
		// 200 picks in one script: each must be new, and outside the range.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		script := "source ./harness.sh; lo=" + strconv.Itoa(r.lo) + " hi=" + strconv.Itoa(r.hi) +
			`; for _ in $(seq 200); do pick_port p || exit 1; echo "$p"; done`
		out, err := exec.CommandContext(ctx, bash, "-c", script).CombinedOutput()
		cancel()
		require.NoError(t, err, "range %d-%d: %s", r.lo, r.hi, out)
		seen := map[int]bool{}
		for _, f := range strings.Fields(string(out)) {
			p, err := strconv.Atoi(f)
			require.NoError(t, err, "range %d-%d: %s", r.lo, r.hi, out)
			assert.True(t, p >= 1024 && p <= 65535 && (p < r.lo || p > r.hi), "range %d-%d: port %d", r.lo, r.hi, p)
			assert.False(t, seen[p], "range %d-%d: port %d picked twice", r.lo, r.hi, p)
			seen[p] = true
		}
		assert.Len(t, seen, 200, "range %d-%d", r.lo, r.hi)
	}
}
