package main

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// TestWatchesOfNewKeysHoldLinearMemory: on memkv, a connection that names a
// new key in each of its WATCHes holds memory in proportion to the keys it
// watches, not to their square. Each such WATCH moves the transaction on
// (moveOn), and the transaction it leaves becomes a check that EXEC
// commits; each check held a copy of every key read or watched before it,
// though the checks before it validate those up to EXEC. 256 WATCHes of a
// new 4 KiB key (1 MiB sent) held 150 MB until EXEC, 230 MB with a GET of
// every second key, and EXEC validated each key once per later WATCH. With
// those GETs, each WATCH of a new key also mapped every check's keys
// (expireReads), though none had expired: 10 s of CPU for the 256. A
// watched key written by another client still aborts EXEC, whichever
// WATCH named it.
func TestWatchesOfNewKeysHoldLinearMemory(t *testing.T) {
	heap := func() int64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC() // a second collection empties sync.Pools
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	const n, size = 256, 4 << 10
	ss := benchSession(t, Config{HTTPAddr: "-", Limits: Limits{MaxArgs: n}})
	other := &session{g: ss.g, tenant: ss.g.open, proto: 2}
	do := func(s *session, args ...[]byte) any {
		r := s.execute([]redcon.Command{{Args: args}})
		v := r[0]
		clear(r)
		return v
	}
	key := func(i int) []byte {
		return append(fmt.Appendf(nil, "{w}%d-", i), bytes.Repeat([]byte("x"), size)...)
	}
	for _, written := range []int{-1, 0, n / 2, n - 1} {
		t.Run(fmt.Sprint("written ", written), func(t *testing.T) {
			before := heap()
			for i := range n {
				require.Equal(t, simple("OK"), do(ss, []byte("WATCH"), key(i)))
				if i%2 == 0 { // a read through the transaction, as WATCH's keys are held
					do(ss, []byte("GET"), key(i))
				}
			}
			held := heap() - before
			t.Logf("held after %d WATCHes of a new %d-byte key: %d KB", n, size, held>>10)
			assert.Less(t, held, int64(8*n*size), "memory held until EXEC")
			if written >= 0 {
				require.Equal(t, simple("OK"), do(other, []byte("SET"), key(written), []byte("v")))
			}
			require.Equal(t, simple("OK"), do(ss, []byte("MULTI")))
			require.Equal(t, simple("QUEUED"), do(ss, []byte("SET"), []byte("{w}out"), []byte("1")))
			r := do(ss, []byte("EXEC"))
			if written >= 0 {
				assert.Equal(t, nullArray{}, r, "a key watched changed")
			} else {
				assert.Equal(t, []any{simple("OK")}, r, "nothing watched changed")
			}
		})
	}
	runtime.KeepAlive(ss)
}
