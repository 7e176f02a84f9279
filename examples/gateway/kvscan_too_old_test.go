package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// TestKVScanTooOldScansAgain: KVSCAN reads each memkv shard at its newest
// version; when writes of more than the shard's history window's bytes land
// between taking that version and the scan (one large commit here), the
// scan fails with ErrTooOld, and KVSCAN answered the error, where the
// gateway's other reads read again at the newest version.
func TestKVScanTooOldScansAgain(t *testing.T) {
	in := startGateway(t, Config{HTTPAddr: "-", Backend: BackendConfig{Kind: "memkv", Shards: 1}})
	be := mustMemkv(t, in.gw.backend)
	st := be.stores[0]
	_, err := st.Put(context.Background(), []byte("a:1"), encodeValue([]byte("x"), 0))
	require.NoError(t, err)
	s := &session{g: in.gw, tenant: in.gw.tenants["default"]}
	ctx := &hookCtx{Context: context.Background(), n: 1, hook: func() {
		_, err := st.Commit(context.Background(), &memkv.CommitRequest{Sets: [][]byte{[]byte("z"), make([]byte, memkvHistoryBytes+1)}})
		require.NoError(t, err)
	}}
	r := commands["KVSCAN"].fn(ctx, s, [][]byte{[]byte("KVSCAN"), []byte("a:"), []byte("a;")})
	require.Equal(t, []any{[]byte("a:1"), []byte("x")}, r)
}
