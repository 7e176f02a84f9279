package controlplane_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// TestSlotsErrorSaysInvalidConfigOnce: the Slots check borrows hashring's
// rule and message, which already ends in "invalid config".
func TestSlotsErrorSaysInvalidConfigOnce(t *testing.T) {
	_, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Slots: 1000})
	require.ErrorIs(t, err, controlplane.ErrInvalidConfig)
	require.EqualError(t, err, "controlplane: hashring: Config.Slots 1000 must be a power of two in [2^8, 2^24]: invalid config")
}
