package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
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
				cfg, err := Config{spanExporter: m.exp, OTelSample: m.sample, HTTPAddr: "-"}.withDefaults()
				require.NoError(b, err)
				be, err := newMemkvBackend(cfg.Backend.Shards)
				require.NoError(b, err)
				g, err := newGateway(cfg, be)
				require.NoError(b, err)
				defer g.Close()
				ss := &session{g: g, tenant: g.open, proto: 2}
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
