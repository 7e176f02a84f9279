package cache_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/cache"
)

// invalidConfigs lists one Config per invalid field value, with the sentinel
// that names the field.
var invalidConfigs = []struct {
	name string
	give cache.Config[string]
	want error
}{
	{"Capacity", cache.Config[string]{Capacity: -1}, cache.ErrCapacity},
	{"MaxStaleness", cache.Config[string]{MaxStaleness: -time.Nanosecond}, cache.ErrStaleness},
}

func TestConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	for _, tt := range invalidConfigs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cache.New[string, int](tt.give)
			require.ErrorIs(t, err, cache.ErrInvalidConfig, "New")
			require.ErrorIs(t, err, tt.want, "New")
			assert.EqualError(t, err, tt.want.Error()+": invalid config", "New")

			c, err := cache.New[string, int](cache.Config[string]{})
			require.NoError(t, err)
			err = c.SetConfig(tt.give)
			require.ErrorIs(t, err, cache.ErrInvalidConfig, "SetConfig")
			require.ErrorIs(t, err, tt.want, "SetConfig")
			assert.EqualError(t, err, tt.want.Error()+": invalid config", "SetConfig")
		})
	}
}

// TestSetConfigInvalidKeepsPrevious: a refused SetConfig changes nothing, not
// even the fields of the refused Config that were valid.
func TestSetConfigInvalidKeepsPrevious(t *testing.T) {
	c, err := cache.New[string, int](cache.Config[string]{Capacity: 5, MaxStaleness: time.Second})
	require.NoError(t, err)
	for _, tt := range invalidConfigs {
		bad := tt.give
		if bad.Capacity == 0 {
			bad.Capacity = 2
		}
		if bad.MaxStaleness == 0 {
			bad.MaxStaleness = time.Hour
		}
		require.ErrorIs(t, c.SetConfig(bad), cache.ErrInvalidConfig, tt.name)
		got := c.Config()
		assert.Equal(t, 5, got.Capacity, tt.name)
		assert.Equal(t, time.Second, got.MaxStaleness, tt.name)
		assert.Equal(t, 5, c.Stats().Capacity, tt.name)
	}
}
