package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkCall runs GET and SET through the whole request path in process
// (lookup, ACL, admission, coalescing, batching, memkv), without the network,
// with request traces off, on but not sampled, and on (spans to a no-op
// exporter). Off must cost what the path cost before traces existed.
func BenchmarkCall(b *testing.B) {
	modes := []struct {
		name   string
		exp    sdktrace.SpanExporter
		sample float64
	}{
		{"otel=off", nil, 0},
		{"otel=unsampled", tracetest.NewNoopExporter(), 1e-12},
		{"otel=on", tracetest.NewNoopExporter(), 1},
	}
	for _, cmd := range []string{"GET", "SET"} {
		for _, m := range modes {
			b.Run(cmd+"/"+m.name, func(b *testing.B) {
				ss := benchSession(b, Config{spanExporter: m.exp, OTelSample: m.sample, HTTPAddr: "-"})
				// 4096 keys in turn: memkv keeps versions, so one key written
				// over and over would measure its version chain.
				all := make([][][]byte, 4096)
				for i := range all {
					all[i] = [][]byte{[]byte(cmd), fmt.Appendf(nil, "key:%06d", i)}
					if cmd == "SET" {
						all[i] = append(all[i], []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"))
					}
				}
				spec, name, bad := ss.lookup(all[0])
				require.Nil(b, bad)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, failed := ss.call(spec, name, all[i%len(all)]).(respErr); failed {
						b.Fatal("command failed")
					}
					i++
				}
			})
		}
	}
}

// BenchmarkExecute runs whole pipeline chunks through session.execute on
// memkv, as serveConn does after a read: 16 pipelined GETs, 16 pipelined SETs,
// and one lone 10-key MGET, over 4,096 keys that all hold a 64-byte value. Its allocations per chunk are what the session's
// reused pipeline memory (pipeScratch) and the reply types are about.
func BenchmarkExecute(b *testing.B) {
	value := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	for _, tc := range []struct {
		name  string
		chunk func(i int) []redcon.Command
	}{
		{"GETx16", func(i int) []redcon.Command {
			cmds := make([]redcon.Command, 16)
			for j := range cmds {
				cmds[j].Args = [][]byte{[]byte("GET"), fmt.Appendf(nil, "key:%06d", (i*16+j)%4096)}
			}
			return cmds
		}},
		{"SETx16", func(i int) []redcon.Command {
			cmds := make([]redcon.Command, 16)
			for j := range cmds {
				cmds[j].Args = [][]byte{[]byte("SET"), fmt.Appendf(nil, "key:%06d", (i*16+j)%4096), value}
			}
			return cmds
		}},
		{"MGETx10", func(i int) []redcon.Command {
			args := [][]byte{[]byte("MGET")}
			for j := range 10 {
				args = append(args, fmt.Appendf(nil, "key:%06d", (i*10+j)%4096))
			}
			return []redcon.Command{{Args: args}}
		}},
	} {
		for _, tier := range []string{"", "+cache"} {
			b.Run(tc.name+tier, func(b *testing.B) {
				cfg := Config{HTTPAddr: "-"}
				if tier != "" { // every read a hit, after the first round
					cfg.CacheCapacity, cfg.CacheStaleness = 8192, Duration(time.Minute)
				}
				ss := benchSession(b, cfg)
				for k := range 4096 { // every key holds a value, so reads find them
					set := []redcon.Command{{Args: [][]byte{[]byte("SET"), fmt.Appendf(nil, "key:%06d", k), value}}}
					if r := ss.execute(set)[0]; r != (simple("OK")) {
						b.Fatalf("SET: %v", r)
					}
				}
				chunks := make([][]redcon.Command, 256) // built before the timer
				for i := range chunks {
					chunks[i] = tc.chunk(i)
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					for _, r := range ss.execute(chunks[i%len(chunks)]) {
						if _, failed := r.(respErr); failed {
							b.Fatal("command failed")
						}
					}
					i++
				}
			})
		}
	}
}

// benchSession returns a session of the open tenant on a gateway over memkv,
// built from cfg, which the benchmark's end closes.
func benchSession(b testing.TB, cfg Config) *session {
	b.Helper()
	cfg, err := cfg.withDefaults()
	require.NoError(b, err)
	be, err := newMemkvBackend(cfg.Backend.Shards)
	require.NoError(b, err)
	g, err := newGateway(cfg, be, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = g.Close() })
	return &session{g: g, tenant: g.open, proto: 2}
}
