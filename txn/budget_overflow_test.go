package txn

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// A charge is compared as what is left of the budget, not as a sum: with no
// budget (MaxInt) a sum past MaxInt wrapped negative and was taken (on 32-bit
// platforms, where MaxInt is 2 GiB, with real data), leaving the
// transaction's accounted bytes negative.
func TestChargeNearMaxIntRefusesInsteadOfWrapping(t *testing.T) {
	tx := &Tx{c: &core{}, limit: math.MaxInt, mem: math.MaxInt - 10}
	require.ErrorIs(t, tx.charge(100), ErrTooLarge)
	require.Equal(t, math.MaxInt-10, tx.mem)
	require.NoError(t, tx.charge(10))
	require.Equal(t, math.MaxInt, tx.mem)

	shared := &account{}
	tx = &Tx{c: &core{}, limit: math.MaxInt, mem: 0, acct: shared}
	shared.limit.Store(math.MaxInt64)
	shared.used.Store(math.MaxInt64 - 10)
	require.ErrorIs(t, tx.charge(100), ErrTooLarge)
	require.Equal(t, int64(math.MaxInt64-10), shared.used.Load())
	require.Zero(t, tx.mem)
	require.NoError(t, tx.charge(10))
	require.Equal(t, int64(math.MaxInt64), shared.used.Load())
}
