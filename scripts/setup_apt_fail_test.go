package scripts_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetupAptFails: when apt-get fails, setup.sh fails with apt's messages
// and a last line of its own that names what it could not install, and
// says the network may be down when a download failed. Offline, apt-get
// update only warns ("W: Failed to fetch ... Temporary failure resolving")
// and exits 0: on a fresh machine, whose lists are empty, the run ended on
// apt's "E: Unable to locate package redis-tools", as if the package's name
// were wrong, and scripts/test.sh stopped there without a word of its own.
func TestSetupAptFails(t *testing.T) {
	const fetchFailed = "W: Failed to fetch http://mirror.invalid/dists/stable/InRelease  Temporary failure resolving 'mirror.invalid'"
	for _, tc := range []struct {
		name    string
		update  string // apt-get update's stub body
		install string // apt-get install's stub body
		aptSays string // a line of apt's that setup.sh must show
		offline bool   // whether setup.sh's last line must blame the network
	}{
		{
			name:    "offline, no lists",
			update:  `echo "` + fetchFailed + `" >&2; exit 0`,
			install: `echo "E: Unable to locate package redis-tools" >&2; exit 100`,
			aptSays: "E: Unable to locate package redis-tools",
			offline: true,
		},
		{
			name:    "dpkg interrupted",
			update:  `exit 0`,
			install: `echo "E: dpkg was interrupted, you must manually run 'dpkg --configure -a' to correct the problem." >&2; exit 100`,
			aptSays: "dpkg --configure -a",
		},
		{
			name:    "update refused",
			update:  `echo "E: The repository 'http://mirror.invalid stable Release' does not have a Release file." >&2; exit 100`,
			install: `exit 0`,
			aptSays: "does not have a Release file",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runSetupAptStub(t, `case " $* " in
*" update "*) `+tc.update+` ;;
*" install "*) `+tc.install+` ;;
esac`)
			require.Error(t, err, "setup.sh passed: %s", out)
			assert.Contains(t, out, tc.aptSays, "apt's own message")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			last := lines[len(lines)-1]
			assert.True(t, strings.HasPrefix(last, "setup: "), "last line is apt's, not setup.sh's: %q", out)
			assert.Contains(t, last, "redis-tools", "the last line names what is missing")
			if tc.offline {
				assert.Contains(t, last, "network", "a failed download: %q", last)
			} else {
				assert.NotContains(t, last, "network", "no download failed: %q", last)
			}
		})
	}
}

// runSetupAptStub runs setup.sh, as root, with redis-tools missing and an
// apt-get that runs aptBody, and returns its output and exit error.
func runSetupAptStub(t *testing.T, aptBody string) (string, error) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir, _ := stubTools(t, "redis-server", "chromium")
	for name, body := range map[string]string{"apt-get": aptBody, "id": `[ "$1" = -u ] && echo 0`} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.Remove(p))
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "setup.sh")
	cmd.Env = append(os.Environ(), "PATH="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "setup.sh: %s", out)
	return string(out), err
}
