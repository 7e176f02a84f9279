package hashring_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/cespare/xxhash/v2"

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

// resum replaces data's checksum with the right one for its body.
func resum(body []byte) []byte {
	return binary.LittleEndian.AppendUint64(body, xxhash.Sum64(body))
}

// TestUnmarshalRejectsPaddedVarints: a uvarint written with padding bytes
// (0x83 0x00 for 3) decodes to the same number, so before the check one ring had
// several accepted encodings with different checksums.
func TestUnmarshalRejectsPaddedVarints(t *testing.T) {
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "b", Weight: 2}})
	require.NoError(t, err)
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	body := data[:len(data)-8]
	const at = len("hring1") + 1 // the node count, then "a"'s ID length
	require.Equal(t, []byte{2, 1, 'a'}, body[at:at+3])
	for name, bad := range map[string][]byte{
		"node count": resum(append(append(append([]byte{}, body[:at]...), 0x82, 0x00), body[at+1:]...)),
		"ID length":  resum(append(append(append([]byte{}, body[:at+1]...), 0x81, 0x80, 0x00), body[at+2:]...)),
	} {
		_, err := hashring.Unmarshal(bad)
		assert.ErrorIs(t, err, hashring.ErrCorrupt, name)
	}
	got, err := hashring.Unmarshal(resum(append([]byte{}, body...)))
	require.NoError(t, err, "the canonical encoding still decodes")
	assert.Equal(t, r.Nodes(), got.Nodes())
}

// TestUnmarshalShortInputAllocatesLittle: a 20-byte input that claims MaxNodes
// members must not make Unmarshal reserve room for all of them.
func TestUnmarshalShortInputAllocatesLittle(t *testing.T) {
	body := binary.AppendUvarint(append([]byte("hring1"), 8), hashring.MaxNodes)
	data := resum(append(body, 1, 'x'))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := hashring.Unmarshal(data)
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, hashring.ErrCorrupt)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<10), "bytes allocated for a %d-byte input", len(data))
}

func FuzzUnmarshal(f *testing.F) {
	r, _ := hashring.New(hashring.Config{Slots: 1 << 8}, coreNodes(3, 1))
	data, _ := r.MarshalBinary()
	f.Add(data)
	f.Add([]byte("hring1"))
	var empty hashring.Ring
	data, _ = empty.MarshalBinary()
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkUnmarshal(t, data)
		if len(data) >= 8 { // and with its checksum made right, so the fuzzer reaches the parser
			checkUnmarshal(t, resum(append([]byte{}, data[:len(data)-8]...)))
		}
	})
}

func checkUnmarshal(t *testing.T, data []byte) {
	got, err := hashring.Unmarshal(data)
	if err != nil {
		var ne *hashring.NodeError
		require.True(t, errors.Is(err, hashring.ErrCorrupt) || errors.As(err, &ne), "untyped error %v", err)
		return
	}
	// The encoding is canonical: what is accepted re-encodes to the same bytes.
	again, err := got.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, data, again)
	// Anything accepted is a valid ring: lookups return members, never panic,
	// and every member's share is within one slot of its quota.
	if got.Len() > 0 {
		id, err := got.LookupHash(12345)
		require.NoError(t, err)
		require.True(t, got.Contains(id))
		checkStep(t, &hashring.Ring{}, got)
	}
}

// FuzzMarshalRoundTrip builds rings through arbitrary histories with arbitrary
// weights (any float64 bits; the ones New or Add reject are skipped) and checks the
// wire-format promise: Unmarshal(MarshalBinary(r)) accepts the bytes and places
// every key as r does (each slot's owner, and the replicas of LookupN), with the
// same members and Config.
func FuzzMarshalRoundTrip(f *testing.F) {
	f.Add(uint8(0), []byte{1, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 2, 0, 0, 0, 0, 0, 0, 0, 0x40})
	f.Add(uint8(10), []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xef, 0x7f})
	f.Add(uint8(2), []byte{3, 0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f, 7, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0xd3, 0x3f})
	f.Fuzz(func(t *testing.T, logSlots uint8, ops []byte) {
		r, err := hashring.New(hashring.Config{Slots: 1 << (8 + logSlots%5)}, nil)
		require.NoError(t, err)
		ops = ops[:min(len(ops), 9*32)] // 32 steps
		for step := 0; len(ops) >= 9; step++ {
			op, w := ops[0], math.Float64frombits(binary.LittleEndian.Uint64(ops[1:9]))
			ops = ops[9:]
			var child *hashring.Ring
			nodes := r.Nodes()
			switch {
			case op%3 == 0 || len(nodes) == 0:
				child, err = r.Add(hashring.Node{ID: fmt.Sprint("n", step), Weight: w})
			case op%3 == 1:
				child, err = r.Reweight(nodes[int(op/3)%len(nodes)].ID, w)
			default:
				child, err = r.Remove(nodes[int(op/3)%len(nodes)].ID)
			}
			if err != nil {
				continue // a weight New rejects: the ring stays as it was
			}
			r = child
			checkRoundTrip(t, r)
		}
	})
}

func checkRoundTrip(t *testing.T, r *hashring.Ring) {
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	got, err := hashring.Unmarshal(data)
	require.NoError(t, err, "Unmarshal refused what MarshalBinary wrote for %v", r.Nodes())
	require.Equal(t, r.Nodes(), got.Nodes())
	require.Equal(t, r.Config(), got.Config())
	if r.Len() == 0 {
		return
	}
	require.Equal(t, owners(t, r), owners(t, got), "a key changes owner across the wire")
	for i := range 64 {
		key := fmt.Sprint("k", i)
		want, err := r.LookupN(key, 3)
		require.NoError(t, err)
		have, err := got.LookupN(key, 3)
		require.NoError(t, err)
		require.Equal(t, want, have, key)
	}
}
