package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMutexProfileUnwritable: -mutexprofile to a path that cannot be
// created ran the whole measured run, printed its results and exited 0
// with no profile written and no word of why (os.Create's error was
// dropped). measure now creates the file before the run, as -cpuprofile
// does, and returns the error; a profile it can write is written.
func TestMutexProfileUnwritable(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		path    string
		wantErr bool
	}{
		{filepath.Join(dir, "missing", "mutex.pprof"), true},
		{filepath.Join(dir, "mutex.pprof"), false},
	} {
		cfg := realConfig{Duration: time.Second, MutexProfile: tc.path}.withDefaults()
		cfg.Cores = 1
		tr, err := newRealTier(cfg)
		require.NoError(t, err)
		ctl := &control{t: tr}
		res := &realResult{run: newPhaseStats(1)}
		wait, err := measure(cfg, tr, ctl, res, nil)
		if wait != nil {
			require.NoError(t, wait())
		}
		tr.sh.Close()
		tr.lim.Close()
		if tc.wantErr {
			require.Error(t, err, "an unwritable -mutexprofile %s", tc.path)
			continue
		}
		require.NoError(t, err)
		st, err := os.Stat(tc.path)
		require.NoError(t, err, "the mutex profile is written")
		require.Positive(t, st.Size())
	}
}
