package main

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// TestSessionScratchAfterLargeRunIsBounded: the memory a session reuses from
// one pipeline chunk to the next (pipeScratch) does not stay the size of
// its largest run. A plain run sized every shard's ops for all of the run's
// keys, and a cleared map keeps its room: on 8 shards, an idle connection
// whose last command was an MGET of 1023 keys held 0.7 MB of scratch for as
// long as it stayed open, 3 MB after a pipeline of 8 of them (runs of 4,092
// keys), and 150 KB of conflict maps after 8 DELs of 1023 keys.
func TestSessionScratchAfterLargeRunIsBounded(t *testing.T) {
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	for _, tt := range []struct {
		verb string
		n    int // commands in the pipeline
	}{{"MGET", 1}, {"MGET", 8}, {"DEL", 8}} {
		t.Run(fmt.Sprint(tt.n, " ", tt.verb), func(t *testing.T) {
			ss := benchSession(t, Config{HTTPAddr: "-", Backend: BackendConfig{Shards: 8}})
			var cmds []redcon.Command
			for c := range tt.n {
				args := [][]byte{[]byte(tt.verb)}
				for i := range 1023 {
					args = append(args, fmt.Appendf(nil, "k%d-%d", c, i))
				}
				cmds = append(cmds, redcon.Command{Args: args})
			}
			clear(ss.execute(cmds)) // the replies, written by now, are not scratch
			cmds = nil
			heap() // a second collection empties sync.Pools
			held := heap()
			ss.pipe = pipeScratch{}
			held -= heap()
			t.Logf("scratch held after the run: %d KB", held>>10)
			require.Less(t, held, int64(64<<10), "an idle session keeps the scratch of its largest run")
			runtime.KeepAlive(ss)
		})
	}
}
