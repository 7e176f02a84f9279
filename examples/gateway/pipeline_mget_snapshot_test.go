package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/redcon"

	"github.com/tierkit/tierkit/memkv"
)

// TestPipelinedMGetAfterWriteReadsOneVersion: a plain pipeline run of
// "GET a", "SET c v", "MGET b a" (one shard, no key read and written) sent
// the MGET's a as the GET's op, read before the SET's commit, and its b
// after it, at the shard's version then: an MSET of a and b committed by
// another client in between came back half applied ([new, old]), where the
// README says an MGET's keys on one memkv shard are read at one version and
// an MSET on one shard is never seen half written.
// With more than smallPart ops before them, the part finds its GETs by an
// index: both ways are checked.
func TestPipelinedMGetAfterWriteReadsOneVersion(t *testing.T) {
	for _, others := range []int{0, smallPart + 1} {
		t.Run(fmt.Sprint(others, " other GETs first"), func(t *testing.T) { testMGetAfterWrite(t, others) })
	}
}

func testMGetAfterWrite(t *testing.T, others int) {
	ss := benchSession(t, Config{HTTPAddr: "-"})
	const a, b, c = "{p}a", "{p}b", "{p}c"
	st := mustMemkv(t, ss.g.backend).stores[ss.g.shard(a)]
	ctx := context.Background()
	for _, k := range []string{a, b} {
		_, err := st.Put(ctx, []byte(k), encodeValue([]byte("old"), 0))
		require.NoError(t, err)
	}
	var once atomic.Bool
	cfg := st.Config()
	cfg.Faults.FailBeforeCommit = func(req *memkv.CommitRequest) bool {
		// Another client's MSET a b lands just before the SET's commit.
		if len(req.Sets) == 2 && string(req.Sets[0]) == c && once.CompareAndSwap(false, true) {
			_, err := st.Commit(ctx, &memkv.CommitRequest{ReadVersion: st.ReadVersion(), Sets: [][]byte{
				[]byte(a), encodeValue([]byte("new"), 0), []byte(b), encodeValue([]byte("new"), 0)}})
			assert.NoError(t, err)
		}
		return false
	}
	require.NoError(t, st.SetConfig(cfg))
	args := func(s ...string) redcon.Command {
		cmd := redcon.Command{}
		for _, x := range s {
			cmd.Args = append(cmd.Args, []byte(x))
		}
		return cmd
	}
	var cmds []redcon.Command
	for i := range others {
		cmds = append(cmds, args("GET", fmt.Sprint("{p}other", i)))
	}
	cmds = append(cmds, args("GET", a), args("SET", c, "v"), args("MGET", b, a))
	replies := ss.execute(cmds)
	require.True(t, once.Load(), "the other client's MSET did not run")
	require.Len(t, replies, len(cmds))
	mget, ok := replies[len(cmds)-1].(bulks)
	require.True(t, ok, "MGET replied %#v", replies[len(cmds)-1])
	require.Len(t, mget, 2)
	assert.Equal(t, string(mget[0]), string(mget[1]), "MGET b a saw the MSET of a and b half applied")
}
