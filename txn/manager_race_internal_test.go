package txn

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestManagerOpQueuedBehindTheEndIsNotFound: an operation on a transaction
// that waits for the transaction's previous operation, which ends it (a
// commit), fails with ErrNotFound, as every operation after the end does.
// It ran on the finished Tx: a Rollback queued behind a Commit returned nil,
// telling its client the transaction was rolled back while it had committed,
// and other operations got ErrDone.
func TestManagerOpQueuedBehindTheEndIsNotFound(t *testing.T) {
	s, err := memkv.New(memkv.Config{})
	require.NoError(t, err)
	m, err := NewManager(s, ManagerConfig{})
	require.NoError(t, err)
	for _, op := range []struct {
		name string
		do   func(id ID) error
	}{
		{"Rollback", m.Rollback},
		{"Put", func(id ID) error { return m.Put(id, []byte("k"), []byte("v")) }},
		{"Commit", func(id ID) error { _, err := m.Commit(context.Background(), id); return err }},
	} {
		t.Run(op.name, func(t *testing.T) {
			id, err := m.Begin(Options{})
			require.NoError(t, err)
			m.mu.Lock()
			h := m.txns[id]
			m.mu.Unlock()
			holding, release := make(chan struct{}), make(chan struct{})
			first, queued := make(chan error, 1), make(chan error, 1)
			go func() {
				first <- m.Do(id, func(tx *Tx) error {
					close(holding)
					<-release // hold the transaction while the second operation queues
					if err := tx.Put([]byte("k"), []byte("committed")); err != nil {
						return err
					}
					_, err := tx.Commit(context.Background())
					return err
				})
			}()
			<-holding
			// Bounded polling: both operations hold the transaction in use
			// once the second one has looked it up and waits for the first.
			go func() { queued <- op.do(id) }()
			deadline := time.Now().Add(10 * time.Second)
			for h.inUse.Load() < 2 {
				require.True(t, time.Now().Before(deadline), "the operations never queued")
				runtime.Gosched()
			}
			close(release)
			require.NoError(t, <-first)
			require.ErrorIs(t, <-queued, ErrNotFound)
		})
	}
}
