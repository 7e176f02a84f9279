package scripts_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetupRootOrSudo: on a fresh Debian machine setup.sh refreshes apt's
// lists before it installs, never waits on a question (DEBIAN_FRONTEND), and
// runs apt-get itself as root, where sudo is often not installed (a
// container), through sudo otherwise, and with neither stops before apt,
// saying what to run as root. The runner's uid is the stub id's, so each
// case runs whoever runs the tests; none of this was checked, and a
// setup.sh that always went through sudo (or skipped the update, whose
// lists a fresh machine does not have) passed every test.
func TestSetupRootOrSudo(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	const install = "-o DPkg::Lock::Timeout=300 install -y -qq redis-tools\n"
	const update = "-o DPkg::Lock::Timeout=300 update -qq\n"
	for _, tc := range []struct {
		name     string
		uid      string
		sudo     bool   // a sudo in PATH
		wantLog  string // apt-get's calls, each prefixed by the way it ran
		wantFail bool
	}{
		{"root without sudo", "0", false, "root noninteractive " + update + "root noninteractive " + install, false},
		{"root with sudo", "0", true, "root noninteractive " + update + "root noninteractive " + install, false},
		{"user with sudo", "1000", true, "sudo noninteractive " + update + "sudo noninteractive " + install, false},
		{"user without sudo", "1000", false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, aptLog := stubTools(t, "redis-server", "chromium")
			write := func(name, body string) {
				p := filepath.Join(dir, name)
				require.NoError(t, os.Remove(p))
				if body != "" {
					require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
				}
			}
			write("id", `[ "$1" = -u ] && echo `+tc.uid)
			// The real sudo resets the environment: the stub does too, so
			// that only what setup.sh hands apt-get reaches it.
			sudo := ""
			if tc.sudo {
				sudo = `exec env -i VIA=sudo PATH="$PATH" "$@"`
			}
			write("sudo", sudo)
			write("apt-get", `echo "${VIA:-root} ${DEBIAN_FRONTEND:-interactive} $*" >>"`+aptLog+`"`)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, "setup.sh")
			cmd.Env = append(os.Environ(), "PATH="+dir, "VIA=")
			out, err := cmd.CombinedOutput()
			log, readErr := os.ReadFile(aptLog)
			if !os.IsNotExist(readErr) {
				require.NoError(t, readErr)
			}
			if tc.wantFail {
				require.Error(t, err, "setup.sh: %s", out)
				assert.Contains(t, string(out), "not root and no sudo")
			} else {
				require.NoError(t, err, "setup.sh: %s", out)
			}
			assert.Equal(t, tc.wantLog, string(log), "apt-get runs")
		})
	}
}
