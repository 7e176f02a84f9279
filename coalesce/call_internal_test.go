package coalesce

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJoinCounting: a join adds a waiter and a join; the join count saturates
// instead of carrying into the sealed bit (only "any joins?" is read); a sealed
// call takes no joiner.
func TestJoinCounting(t *testing.T) {
	var c call[int, int]
	c.state.Store(1)
	assert.True(t, c.tryJoin())
	assert.Equal(t, uint64(2|joinOne), c.state.Load())

	c.state.Store(1 | joinsMask)
	assert.True(t, c.tryJoin())
	assert.Equal(t, uint64(2|joinsMask), c.state.Load())

	c.state.Or(sealed)
	assert.False(t, c.tryJoin())
	assert.Equal(t, uint64(sealed|2|joinsMask), c.state.Load())
}
