package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closeCountBackend counts its Close calls, each of which fails with its
// number; the answer of a batch that writes hold is held until release
// closes.
type closeCountBackend struct {
	Backend
	hold    string
	release chan struct{}
	closes  atomic.Int32
}

func (b *closeCountBackend) Do(ctx context.Context, shard int, ops []op, out []opResult) error {
	err := b.Backend.Do(ctx, shard, ops, out)
	if ops[0].key == b.hold {
		<-b.release
	}
	return err
}

func (b *closeCountBackend) Close() error {
	return fmt.Errorf("backend close %d", b.closes.Add(1))
}

// TestGatewayCloseTwice: a second Close returns the first one's result and
// closes nothing again. It closed the worker pool's quit channel again and
// panicked, before closing the backend a second time.
// Found by a review.
func TestGatewayCloseTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := Config{CacheCapacity: 64}.withDefaults()
		require.NoError(t, err)
		mk, err := newMemkvBackend(2)
		require.NoError(t, err)
		g, err := newGateway(cfg, mk, nil)
		require.NoError(t, err)
		require.NoError(t, g.Close())
		require.NotPanics(t, func() { assert.NoError(t, g.Close()) }, "a second Close")

		b := &closeCountBackend{Backend: mk}
		cfg.CacheCapacity = 0 // the tier needs the memkv backend itself
		g, err = newGateway(cfg, b, nil)
		require.NoError(t, err)
		first := g.Close()
		require.EqualError(t, first, "backend close 1")
		var second error
		require.NotPanics(t, func() { second = g.Close() }, "a second Close")
		assert.Equal(t, first, second, "a second Close returns the first one's error")
		assert.Equal(t, int32(1), b.closes.Load(), "the backend is closed once")
	})
}

// TestGatewayCloseConcurrent: Closes called at once all wait for the one
// drain: none returns before the batch in flight has been answered, and the
// write it carries is acknowledged. The second closed the worker pool's quit
// channel again and panicked.
// Found by a review.
func TestGatewayCloseConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg, err := Config{NoHotLinger: true}.withDefaults()
		require.NoError(t, err)
		mk, err := newMemkvBackend(1)
		require.NoError(t, err)
		b := &closeCountBackend{Backend: mk, hold: "k", release: make(chan struct{})}
		g, err := newGateway(cfg, b, nil)
		require.NoError(t, err)

		set := make(chan opResult, 1)
		go func() { set <- g.one(context.Background(), g.open, op{kind: opSet, key: "k", value: []byte("v")}) }()
		synctest.Wait() // the SET's batch is in its backend call

		const closers = 3
		type outcome struct {
			err      error
			panicked any
		}
		closed := make(chan outcome, closers)
		for range closers {
			go func() {
				defer func() {
					if r := recover(); r != nil {
						closed <- outcome{panicked: r}
					}
				}()
				closed <- outcome{err: g.Close()}
			}()
		}
		synctest.Wait()
		early := len(closed)
		close(b.release)
		for range closers {
			o := <-closed
			assert.Nil(t, o.panicked, "a concurrent Close panicked")
			if o.panicked == nil {
				assert.EqualError(t, o.err, "backend close 1")
			}
		}
		assert.Zero(t, early, "a Close returned before the batch in flight was answered")
		res := <-set
		assert.NoError(t, res.err, "the write in flight at Close is acknowledged")
		assert.Equal(t, int32(1), b.closes.Load(), "the backend is closed once")
	})
}
