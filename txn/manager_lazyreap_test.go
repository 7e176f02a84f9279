package txn_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// TestManagerLazyReapAfterReapInTheFuture: Reap(now) with a now ahead of
// the clock (a caller reaping what will have expired by then, a clock that
// jumps back afterwards) set the mark Begin's lazy reaping counts from to
// that now, so Begin did not reap again until the clock passed it, a
// quarter of the timeouts later: for an hour here, Begin at MaxTxns was
// refused while the transaction it held had long been idle past
// IdleTimeout.
func TestManagerLazyReapAfterReapInTheFuture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore(t, memkv.Config{})
		m, err := txn.NewManager(s, txn.ManagerConfig{IdleTimeout: 10 * time.Second, MaxAge: time.Minute, MaxTxns: 1})
		require.NoError(t, err)
		assert.Equal(t, 0, m.Reap(time.Now().Add(time.Hour)))
		_, err = m.Begin(txn.Options{})
		require.NoError(t, err)
		time.Sleep(11 * time.Second) // virtual time: the transaction is idle past IdleTimeout
		_, err = m.Begin(txn.Options{})
		require.NoError(t, err, "Begin reaps the idle transaction first")
		st := m.Stats()
		assert.Equal(t, uint64(1), st.ReapedIdle)
		assert.Equal(t, 1, st.Active)
	})
}
