package citest

import (
	"os"
	"testing"
)

// SkipOrFailInCI skips t for a developer without what it needs, saying why,
// and fails it under CI=true: there scripts/test.sh has run scripts/setup.sh,
// which installs it, so a skip would hide a test CI must run.
func SkipOrFailInCI(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: scripts/setup.sh installs it, and CI runs this test, not skip it)")
	}
	t.Skip(why)
}
