package main

import (
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
				args := [][]byte{[]byte(cmd), []byte("key:000042")}
				if cmd == "SET" {
					args = append(args, []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"))
				}
				spec, name, bad := ss.lookup(args)
				require.Nil(b, bad)
				b.ReportAllocs()
				for b.Loop() {
					if _, failed := ss.call(spec, name, args).(respErr); failed {
						b.Fatal("command failed")
					}
				}
			})
		}
	}
}
