package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShareIsPprofsHeader: the run prints the shed+aimd share as "the same as
// go tool pprof ... <profile>"; the command it quotes must print that share
// in its header. With 400 samples in Acquire and 30 runtime leaves of one
// sample under it (a 20 s run at -profilehz 1000 has some 225 samples of
// shed + aimd, spread over such leaves), pprof -top -focus dropped the
// leaves, each under 0.5% of the focused samples, and its header read 2.59%
// where the run printed 2.79% (found by a review).
func TestShareIsPprofsHeader(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run pprof with")
	}
	samples := []stackSample{
		{400, []string{"github.com/tierkit/tierkit/shed.(*Shedder).Acquire", "main.(*realTier).serve"}},
		{15000, []string{"main.burn", "main.(*realTier).serve"}},
	}
	for i := range 30 {
		samples = append(samples, stackSample{1, []string{fmt.Sprintf("runtime.leaf%d", i),
			"github.com/tierkit/tierkit/shed.(*Shedder).Acquire", "main.(*realTier).serve"}})
	}
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	p := cpuProfile(4e6, samples)
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, p.Write(f))
	require.NoError(t, f.Close())

	r := &realResult{cfg: realConfig{Profile: path, Cores: 2, Target: 0.9},
		warm: newPhaseStats(1350), run: newPhaseStats(1350), machinery: sampleShare(p, machinery)}
	var b strings.Builder
	r.print(&b)
	m := regexp.MustCompile(`shed\+aimd share of the CPU: ([0-9.]+%) .*the same as go tool pprof (.*) '(.*)' ` + regexp.QuoteMeta(path) + `\)`).
		FindStringSubmatch(b.String())
	require.NotNil(t, m, "the printed share and its command:\n%s", b.String())
	args := append([]string{"tool", "pprof"}, strings.Fields(m[2])...)
	out, err := exec.Command(goCmd, append(args, m[3], path)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	h := regexp.MustCompile(`Showing nodes accounting for \S+, ([0-9.]+%) of`).FindSubmatch(out)
	require.NotNil(t, h, "%s", out)
	require.Equal(t, m[1], string(h[1]), "the printed share against pprof's header:\n%s", out)
}
