package memkv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
)

// invalidConfigs lists one Config per invalid field value, with the message
// that names it.
var invalidConfigs = []struct {
	name string
	give memkv.Config
	want string
}{
	{"empty split", memkv.Config{Splits: [][]byte{[]byte("a"), {}}}, "memkv: Splits must not contain an empty key"},
	{"equal splits", memkv.Config{Splits: [][]byte{[]byte("a"), []byte("a")}}, "memkv: Splits must be strictly increasing (index 1)"},
	{"unordered splits", memkv.Config{Splits: [][]byte{[]byte("a"), []byte("c"), []byte("b")}}, "memkv: Splits must be strictly increasing (index 2)"},
	{"CheckpointEvery", memkv.Config{CheckpointEvery: -1}, "memkv: CheckpointEvery -1 is negative"},
	{"FeedBuffer", memkv.Config{FeedBuffer: -1}, "memkv: FeedBuffer -1 is negative"},
	{"MaxCommitBytes", memkv.Config{MaxCommitBytes: -1}, "memkv: MaxCommitBytes -1 is negative"},
	{"Faults.Delay", memkv.Config{Faults: memkv.Faults{Delay: -1}}, "memkv: Faults.Delay -1ns is negative"},
	{"HistoryBytes", memkv.Config{HistoryBytes: -1}, "memkv: HistoryBytes -1 is negative"},
}

func TestConfigErrorsWrapErrInvalidConfig(t *testing.T) {
	for _, tt := range invalidConfigs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := memkv.New(tt.give)
			require.ErrorIs(t, err, memkv.ErrInvalidConfig, "New")
			assert.EqualError(t, err, tt.want+": invalid config", "New")

			s, err := memkv.New(memkv.Config{})
			require.NoError(t, err)
			err = s.SetConfig(tt.give)
			require.ErrorIs(t, err, memkv.ErrInvalidConfig, "SetConfig")
			assert.EqualError(t, err, tt.want+": invalid config", "SetConfig")
		})
	}
	// Valid Splits, but not the store's own.
	s, err := memkv.New(memkv.Config{Splits: [][]byte{[]byte("m")}})
	require.NoError(t, err)
	err = s.SetConfig(memkv.Config{Splits: [][]byte{[]byte("n")}})
	require.ErrorIs(t, err, memkv.ErrInvalidConfig)
	assert.EqualError(t, err, "memkv: Splits cannot change after New: invalid config")
	require.NoError(t, s.SetConfig(memkv.Config{Splits: [][]byte{[]byte("m")}}))
}

// TestSetConfigInvalidKeepsPrevious: a refused SetConfig changes nothing, not
// even the fields of the refused Config that were valid.
func TestSetConfigInvalidKeepsPrevious(t *testing.T) {
	good := memkv.Config{Splits: [][]byte{[]byte("m")}, HistoryVersions: 100, GCStep: 3,
		CheckpointEvery: 5, FeedBuffer: 6, MaxCommitBytes: 7}
	s, err := memkv.New(good)
	require.NoError(t, err)
	bads := append([]memkv.Config{{Splits: [][]byte{[]byte("n")}}}, func() (out []memkv.Config) {
		for _, tt := range invalidConfigs {
			out = append(out, tt.give)
		}
		return out
	}()...)
	for i, bad := range bads {
		bad.HistoryVersions, bad.GCStep = 1000, 30
		require.ErrorIs(t, s.SetConfig(bad), memkv.ErrInvalidConfig, "config %d", i)
		assert.Equal(t, good, s.Config(), "config %d", i)
	}
}
