package citest_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/internal/citest"
)

// TestSkipOrFailInCI: a test whose tool is missing skips for a developer
// and fails under CI=true, naming scripts/setup.sh.
func TestSkipOrFailInCI(t *testing.T) {
	if os.Getenv("TIERKIT_CI_SKIP_CHILD") == "1" {
		citest.SkipOrFailInCI(t, "needs a tool")
		return
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "CI=") })
	for _, ci := range []string{"true", ""} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSkipOrFailInCI$", "-test.v")
		cmd.Env = append(env, "TIERKIT_CI_SKIP_CHILD=1", "CI="+ci)
		out, err := cmd.CombinedOutput()
		if ci == "true" {
			require.Error(t, err, "%s", out)
			require.Contains(t, string(out), "scripts/setup.sh", "%s", out)
		} else {
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), "--- SKIP", "%s", out)
		}
	}
}
