package main

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
)

// TestPlainRunKeepsNoRead: the keys and SET values of a plain run share
// the bytes of the read they came in (argString, respReader's one buffer per
// read), and may live no longer than their commands. The session's scratch
// kept them in its parts' ops (and their GET index and, with the caching
// tier, its split of keys and writes) until the connection's next plain run:
// an idle connection whose last pipeline carried a large SET held that
// read's whole buffer for as long as it stayed open, after respReader had
// given its own copy back.
func TestPlainRunKeepsNoRead(t *testing.T) {
	for _, tier := range []bool{false, true} {
		t.Run(fmt.Sprint("tier=", tier), func(t *testing.T) {
			cfg := Config{HTTPAddr: "-", Backend: BackendConfig{Shards: 2}}
			if tier {
				cfg.CacheCapacity, cfg.CacheStaleness = 100, Duration(time.Minute)
			}
			ss := benchSession(t, cfg)
			read := new([1 << 20]byte) // the read's buffer, as respReader.commands makes it
			gone := weak.Make(read)
			buf := read[:0]
			arg := func(s string) []byte {
				from := len(buf)
				buf = append(buf, s...)
				return buf[from:len(buf):len(buf)]
			}
			value := read[len(read)-512<<10:]
			var cmds []redcon.Command
			// Past smallPart GETs in a part: its GET index holds keys too.
			for i := range 2 * smallPart {
				cmds = append(cmds, redcon.Command{Args: [][]byte{arg("GET"), arg(fmt.Sprint("k", i))}})
			}
			cmds = append(cmds,
				redcon.Command{Args: [][]byte{arg("SET"), arg("big"), value}},
				redcon.Command{Args: [][]byte{arg("MGET"), arg("a"), arg("b")}})
			replies := ss.execute(cmds)
			require.Equal(t, simple("OK"), replies[2*smallPart])
			read, buf, value, cmds = nil, nil, nil, nil
			runtime.GC()
			require.True(t, gone.Value() == nil, "the session keeps the read's buffer after the run")
			runtime.KeepAlive(ss) // the connection stays open
		})
	}
}
