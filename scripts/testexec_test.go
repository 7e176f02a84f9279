package scripts_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testexecTimeout runs testexec.sh, as go test -exec does, on a stand-in
// test binary that prints its arguments, under TIERKIT_TEST_DEADLINE
// (deadline from now) and TIERKIT_TEST_CAP (capSeconds), and returns the
// seconds of the binary's last -test.timeout, the one that wins.
func testexecTimeout(t *testing.T, deadline time.Duration, capSeconds int) int {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := filepath.Join(t.TempDir(), "pkg.test")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\nfor a; do echo \"$a\"; done\n"), 0o755))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "testexec.sh", bin, "-test.timeout="+strconv.Itoa(capSeconds)+"s")
	cmd.Env = append(os.Environ(),
		"TIERKIT_TEST_DEADLINE="+strconv.FormatInt(time.Now().Add(deadline).Unix(), 10),
		"TIERKIT_TEST_CAP="+strconv.Itoa(capSeconds))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "testexec.sh: %s", out)
	timeout := -1
	for _, line := range strings.Fields(string(out)) {
		if v, ok := strings.CutPrefix(line, "-test.timeout="); ok {
			s, ok := strings.CutSuffix(v, "s")
			require.True(t, ok, "%s", out)
			timeout, err = strconv.Atoi(s)
			require.NoError(t, err, "%s", out)
		}
	}
	require.NotEqual(t, -1, timeout, "no -test.timeout: %s", out)
	return timeout
}

// TestTestexecCapUnderAMinute: the minute testexec.sh never goes under is
// there so that a binary started at or after the deadline does not get a
// -timeout of 0 or less (0 would mean none). It also lifted a cap under a
// minute to one: gotest 30 bounded a binary at 30 s run alone and at 60 s
// under .ci/run's deadline. And a cap of 0, go test's "no timeout", became
// 60 s under the deadline rather than what was left of it.
func TestTestexecCapUnderAMinute(t *testing.T) {
	assert.Equal(t, 30, testexecTimeout(t, 10*time.Minute, 30), "a cap under a minute")
	assert.Equal(t, 20, testexecTimeout(t, -time.Minute, 20), "a cap under a minute, after the deadline")
	left := testexecTimeout(t, 10*time.Minute, 0)
	assert.True(t, left > 580 && left <= 600, "cap 0 (none): what is left of the deadline, got %d s", left)
}

// TestTestexecDeadline: the cap, or what is left until the deadline when
// that is less, never under a minute.
func TestTestexecDeadline(t *testing.T) {
	assert.Equal(t, 900, testexecTimeout(t, time.Hour, 900), "the cap")
	left := testexecTimeout(t, 5*time.Minute, 900)
	assert.True(t, left > 280 && left <= 300, "what is left: got %d s", left)
	assert.Equal(t, 60, testexecTimeout(t, 10*time.Second, 900), "a minute at least")
	assert.Equal(t, 60, testexecTimeout(t, -time.Minute, 900), "a minute after the deadline")
}
