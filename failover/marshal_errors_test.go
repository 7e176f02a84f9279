package failover_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/failover"
)

// TestMarshalErrorsAreInvalidTable: encoding a mechanism or phase that has no
// name, alone or in a Table built by hand, is an error a publisher can tell
// apart with errors.Is(err, ErrInvalidTable), as the other refusals of
// Table.MarshalJSON are.
func TestMarshalErrorsAreInvalidTable(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		give func() error
	}{
		{"zero mechanism", func() error { _, err := failover.Mechanism(0).MarshalText(); return err }},
		{"mechanism past the last", func() error { _, err := failover.Mechanism(9).MarshalText(); return err }},
		{"phase past the last", func() error { _, err := failover.Phase(9).MarshalText(); return err }},
		{"table route without mechanism", func() error {
			_, err := json.Marshal(failover.Table{Now: now, Routes: []failover.Route{{From: "a", To: "b", Share: 0.5}}})
			return err
		}},
		{"table decision with unknown phase", func() error {
			_, err := failover.Table{Now: now, Regions: []failover.RegionDecision{{Name: "a", Phase: 7}}}.MarshalJSON()
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.give()
			require.Error(t, err)
			assert.True(t, errors.Is(err, failover.ErrInvalidTable), "%v", err)
		})
	}
}
