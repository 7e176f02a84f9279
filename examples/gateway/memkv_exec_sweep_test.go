package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestMemkvExpiredKeysReclaimedAfterExec: the writes EXEC commits on memkv
// walk the expiry sweep on as the same writes outside a transaction do, so
// tokens written only in MULTI/EXEC (a lock taken with SET NX PX in a
// transaction, go-redis's TxPipelined) leave the shard once expired.
// Before, only the backend's batches owed the sweep, and a shard written
// through transactions alone kept every expired key for good, which the
// README says the sweep ended. Explicit time: the backend's clock.
func TestMemkvExpiredKeysReclaimedAfterExec(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-"})
	m, clock := setMemkvClock(t, in.gw.backend, time.Unix(1_000_000, 0))
	ctx := context.Background()
	c := client(t, in, nil)

	const rounds, execs, perExec = 20, 10, 10
	for r := range rounds {
		for e := range execs {
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				for i := range perExec {
					p.Set(ctx, fmt.Sprintf("{t}tok:%d:%d:%d", r, e, i), "v", time.Second)
				}
				return nil
			})
			require.NoError(t, err)
		}
		clock.Add(int64(2 * time.Second)) // this round's tokens expire
	}
	s := m.stores[in.gw.shard("{t}")]
	kv, err := s.Scan(ctx, s.ReadVersion(), nil, nil, 0, false, nil)
	require.NoError(t, err)
	// 2,000 tokens were written, at most 100 of them live at any time.
	const perRound = execs * perExec
	require.Less(t, len(kv)/2, 3*perRound, "keys stored after %d expired tokens", rounds*perRound)
}
