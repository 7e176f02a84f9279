package hashring_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

func TestMarshalRoundTrip(t *testing.T) {
	r, err := hashring.New(hashring.Config{Slots: 1 << 12}, coreNodes(30, 5))
	require.NoError(t, err)
	r, err = r.Remove("host-0003")
	require.NoError(t, err)
	r, err = r.Add(hashring.Node{ID: "late", Weight: 100})
	require.NoError(t, err)
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	got, err := hashring.Unmarshal(data)
	require.NoError(t, err)
	assert.Equal(t, owners(t, r), owners(t, got), "the decoded ring routes like the original")
	assert.Equal(t, r.Nodes(), got.Nodes())
	assert.Equal(t, r.Config(), got.Config())

	var empty hashring.Ring
	data, err = empty.MarshalBinary()
	require.NoError(t, err)
	e, err := hashring.Unmarshal(data)
	require.NoError(t, err)
	assert.Zero(t, e.Len())
}

func TestUnmarshalRejectsCorruption(t *testing.T) {
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, coreNodes(5, 1))
	require.NoError(t, err)
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	for _, bad := range [][]byte{nil, []byte("hring1"), data[:len(data)-1], append([]byte("xring1"), data[6:]...)} {
		_, err := hashring.Unmarshal(bad)
		assert.ErrorIs(t, err, hashring.ErrCorrupt)
	}
	flipped := append([]byte(nil), data...)
	flipped[40] ^= 1
	_, err = hashring.Unmarshal(flipped)
	assert.ErrorIs(t, err, hashring.ErrCorrupt)
}

func FuzzUnmarshal(f *testing.F) {
	r, _ := hashring.New(hashring.Config{Slots: 1 << 8}, coreNodes(3, 1))
	data, _ := r.MarshalBinary()
	f.Add(data)
	f.Add([]byte("hring1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := hashring.Unmarshal(data)
		if err != nil {
			return
		}
		// Anything accepted is a valid ring: lookups return members, never panic.
		if got.Len() > 0 {
			id, err := got.LookupHash(12345)
			require.NoError(t, err)
			require.True(t, got.Contains(id))
		}
	})
}
