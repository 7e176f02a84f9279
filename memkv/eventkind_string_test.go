package memkv_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/memkv"
)

// TestEventKindNamesItself checks that a printed Event names its kind, as the
// kinds of cache (since this change), rollout, balancer and failover do,
// rather than Kind:1.
func TestEventKindNamesItself(t *testing.T) {
	for _, tc := range []struct {
		k    memkv.EventKind
		want string
	}{
		{memkv.EventWrite, "write"},
		{memkv.EventCheckpoint, "checkpoint"},
		{0, "EventKind(0)"},
		{7, "EventKind(7)"},
		{-1, "EventKind(-1)"},
	} {
		assert.Equal(t, tc.want, tc.k.String())
	}
	assert.Equal(t, "{Kind:checkpoint Version:9}", fmt.Sprintf("%+v", struct {
		Kind    memkv.EventKind
		Version uint64
	}{memkv.EventCheckpoint, 9}))
}
