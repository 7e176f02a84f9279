package control_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/tierkit/tierkit/control"
)

// BenchmarkApply measures one validated, audited change of one knob.
func BenchmarkApply(b *testing.B) {
	fx := newFixture(b, control.Config{})
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		i++
		if _, err := fx.reg.ApplyAt(t0, one("n", control.Int(1+i%100))); err != nil && i%100 != 10 {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyJSON measures the HTTP path minus the transport: decode, apply.
func BenchmarkApplyJSON(b *testing.B) {
	fx := newFixture(b, control.Config{})
	bodies := make([][]byte, 100)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, `{"who":"bench","why":"b","changes":[{"knob":"n","value":%d}]}`, i+1)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		req, err := control.DecodeRequest(bodies[i%100])
		if err != nil {
			b.Fatal(err)
		}
		_, _ = fx.reg.ApplyAt(t0, req)
	}
}

// BenchmarkGet measures concurrent reads of a knob's value.
func BenchmarkGet(b *testing.B) {
	fx := newFixture(b, control.Config{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := fx.reg.Get("n"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNaiveSet is the baseline: a mutex-guarded map write with no
// validation, audit or rate limit.
func BenchmarkNaiveSet(b *testing.B) {
	var mu sync.Mutex
	m := map[string]int64{"n": 10}
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		i++
		mu.Lock()
		m["n"] = i
		mu.Unlock()
	}
}

// BenchmarkRollback measures a change followed by its rollback.
func BenchmarkRollback(b *testing.B) {
	fx := newFixture(b, control.Config{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := fx.reg.ApplyAt(t0, one("n", control.Int(50))); err != nil {
			b.Fatal(err)
		}
		if _, err := fx.reg.RollbackAt(t0, "b", ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fx.reg.Stats().AuditLen), "audit-entries")
}
