package hashring_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// TestConfigErrorsWrapErrInvalidConfig: New refuses every Slots out of range
// with an error wrapping ErrInvalidConfig that names the value. (A ring is
// immutable: there is no SetConfig.)
func TestConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	for _, slots := range []int{-1, 1, 100, 1 << 7, 3 << 10, 1<<24 + 1, 1 << 25} {
		t.Run(fmt.Sprint(slots), func(t *testing.T) {
			_, err := hashring.New(hashring.Config{Slots: slots}, nil)
			require.ErrorIs(t, err, hashring.ErrInvalidConfig)
			assert.EqualError(t, err,
				fmt.Sprintf("hashring: Config.Slots %d must be a power of two in [2^8, 2^24]: invalid config", slots))
		})
	}
	// Node errors are not config errors.
	_, err := hashring.New(hashring.Config{}, []hashring.Node{{ID: "", Weight: 1}})
	require.ErrorIs(t, err, hashring.ErrBadID)
	assert.NotErrorIs(t, err, hashring.ErrInvalidConfig)
}
