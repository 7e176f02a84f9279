package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestSummarizeRateOverWindow: the progress lines of `go run ./cluster`
// divided each window's requests by 2 s, the pause between lines, while a
// window also spans the time it took to write the previous line: a terminal
// paused (Ctrl-S) or a slow pipe made the next line's rates too high by as
// many times as the window was longer. Here the first line takes 3 s to
// write: the second covers 5 s, in which 500 requests were served.
func TestSummarizeRateOverWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := controlplane.New(controlplane.Config{
			Regions:  []controlplane.Region{{Name: "eu"}},
			Gateways: []controlplane.Gateway{{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:1", HTTP: "127.0.0.1:2", Cores: 1}},
			Direct:   []string{"127.0.0.1:3"},
		})
		require.NoError(t, err)
		c := &Cluster{Spec: Spec{Regions: []string{"eu"}}, Tenants: []string{"t00"}, Plane: p,
			Gateways: []*gatewayProc{{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:1"}}}
		c.Load, err = NewLoad(c.loadSpec())
		require.NoError(t, err)
		defer func() { assert.NoError(t, c.Load.Close()) }()

		out := &slowWriter{delay: 3 * time.Second}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); summarize(ctx, c, out) }()
		time.Sleep(3 * time.Second) // the first line (at 2 s) is being written until 5 s
		for range 500 {
			c.Load.byKey["t00/eu"].record(nil)
		}
		time.Sleep(4500 * time.Millisecond) // the second line, at 7 s
		cancel()
		<-done
		lines := out.lines()
		require.Len(t, lines, 2, "%q", lines)
		assert.Contains(t, lines[1], " 100 req/s (ok 500,", "500 requests in the 5 s since the first line")
	})
}

// slowWriter keeps what is written; its first write takes delay.
type slowWriter struct {
	delay time.Duration
	mu    sync.Mutex
	b     strings.Builder
	n     int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n++
	first := w.n == 1
	w.mu.Unlock()
	if first {
		time.Sleep(w.delay)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *slowWriter) lines() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Split(strings.TrimSuffix(w.b.String(), "\n"), "\n")
}
