package cache_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/cache"
)

// TestEventKindNamesItself checks that a printed Event names its kind, as
// rollout's, balancer's and failover's kinds do, rather than Kind:1.
func TestEventKindNamesItself(t *testing.T) {
	for _, tc := range []struct {
		k    cache.EventKind
		want string
	}{
		{cache.Write, "write"},
		{cache.Delete, "delete"},
		{cache.Checkpoint, "checkpoint"},
		{0, "EventKind(0)"},
		{200, "EventKind(200)"},
	} {
		assert.Equal(t, tc.want, tc.k.String())
	}
	e := cache.Event[string, int]{Kind: cache.Delete, Key: "k", Version: 3}
	assert.Contains(t, fmt.Sprintf("%+v", e), "Kind:delete")
}
