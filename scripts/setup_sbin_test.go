package scripts_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSetupNutcrackerInSbin: Debian installs nutcracker as
// /usr/sbin/nutcracker, and a user other than root has no /usr/sbin in
// PATH: `scripts/setup.sh nutcracker` found it missing on every run and
// ran sudo apt-get again (update and install), so a second run was not the
// no-op the script promises. setup.sh looks in the sbin folders too, as
// harness.sh does. The PATH here is a non-root user's: the stubs, then
// the usual bin folders.
func TestSetupNutcrackerInSbin(t *testing.T) {
	if _, err := os.Stat("/usr/sbin/nutcracker"); err != nil {
		skipOrFailInCI(t, "needs Debian's /usr/sbin/nutcracker: run scripts/setup.sh nutcracker")
	}
	for _, dir := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		if _, err := os.Stat(dir + "/nutcracker"); err == nil {
			t.Skip("nutcracker is in " + dir + " too")
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir, aptLog := stubTools(t, "redis-server", "redis-cli", "redis-benchmark", "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "setup.sh", "nutcracker")
	cmd.Env = append(os.Environ(), "PATH="+dir+":/usr/local/bin:/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "setup.sh: %s", out)
	log, err := os.ReadFile(aptLog)
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	require.Empty(t, strings.TrimSpace(string(log)), "apt-get runs")
}

// nutcrackerInSbin reports whether one of the sbin folders setup.sh adds to
// PATH holds nutcracker.
func nutcrackerInSbin() bool {
	for _, dir := range []string{"/usr/local/sbin", "/usr/sbin", "/sbin"} {
		if _, err := os.Stat(dir + "/nutcracker"); err == nil {
			return true
		}
	}
	return false
}
