package hashring_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// equalNodes returns n nodes of weight 1.
func equalNodes(n int) []hashring.Node {
	nodes := make([]hashring.Node, n)
	for i := range nodes {
		nodes[i] = hashring.Node{ID: fmt.Sprintf("node-%04d", i), Weight: 1}
	}
	return nodes
}

// coreNodes returns n nodes weighted like hosts of 26 to 126 cores, drawn with seed.
func coreNodes(n int, seed uint64) []hashring.Node {
	rng := rand.New(rand.NewPCG(seed, 26126))
	nodes := make([]hashring.Node, n)
	for i := range nodes {
		nodes[i] = hashring.Node{ID: fmt.Sprintf("host-%04d", i), Weight: float64(26 + rng.IntN(101))}
	}
	return nodes
}

// owners returns the owner of every slot, read through LookupHash.
func owners(t testing.TB, r *hashring.Ring) []string {
	m := r.Config().Slots
	shift := 64 - uint(math.Log2(float64(m)))
	out := make([]string, m)
	for s := range out {
		id, err := r.LookupHash(uint64(s) << shift)
		require.NoError(t, err)
		out[s] = id
	}
	return out
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name  string
		cfg   hashring.Config
		nodes []hashring.Node
		want  error
	}{
		{"zero weight", hashring.Config{}, []hashring.Node{{ID: "a", Weight: 0}}, hashring.ErrBadWeight},
		{"negative weight", hashring.Config{}, []hashring.Node{{ID: "a", Weight: -1}}, hashring.ErrBadWeight},
		{"NaN weight", hashring.Config{}, []hashring.Node{{ID: "a", Weight: math.NaN()}}, hashring.ErrBadWeight},
		{"infinite weight", hashring.Config{}, []hashring.Node{{ID: "a", Weight: math.Inf(1)}}, hashring.ErrBadWeight},
		{"weights overflow", hashring.Config{}, []hashring.Node{{ID: "a", Weight: math.MaxFloat64}, {ID: "b", Weight: math.MaxFloat64}}, hashring.ErrBadWeight},
		{"empty ID", hashring.Config{}, []hashring.Node{{ID: "", Weight: 1}}, hashring.ErrBadID},
		{"duplicate", hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "a", Weight: 2}}, hashring.ErrDuplicateNode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := hashring.New(tt.cfg, tt.nodes)
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, r)
			var ne *hashring.NodeError
			require.ErrorAs(t, err, &ne)
			assert.Contains(t, err.Error(), "hashring: new")
		})
	}
}

func TestConfigRejects(t *testing.T) {
	for _, slots := range []int{-1, 1, 100, 1 << 7, 3 << 10, 1 << 25} {
		_, err := hashring.New(hashring.Config{Slots: slots}, equalNodes(2))
		require.Error(t, err, "slots %d", slots)
		assert.Contains(t, err.Error(), "hashring: Config.Slots")
	}
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, equalNodes(2))
	require.NoError(t, err)
	assert.Equal(t, 1<<8, r.Config().Slots)
}

func TestEmptyRing(t *testing.T) {
	var zero hashring.Ring
	built, err := hashring.New(hashring.Config{}, nil)
	require.NoError(t, err)
	for _, r := range []*hashring.Ring{&zero, built} {
		_, err := r.Lookup("k")
		assert.ErrorIs(t, err, hashring.ErrEmpty)
		_, err = r.LookupHash(1)
		assert.ErrorIs(t, err, hashring.ErrEmpty)
		_, err = r.LookupN("k", 2)
		assert.ErrorIs(t, err, hashring.ErrEmpty)
		_, err = r.LookupBounded("k", 1.25, &hashring.Loads{})
		assert.ErrorIs(t, err, hashring.ErrEmpty)
		assert.Empty(t, r.AppendLookupNHash(nil, 1, 3))
		assert.Equal(t, 0, r.Len())
		assert.Equal(t, hashring.DefaultSlots, r.Config().Slots)

		grown, err := r.Add(hashring.Node{ID: "a", Weight: 1})
		require.NoError(t, err)
		id, err := grown.Lookup("k")
		require.NoError(t, err)
		assert.Equal(t, "a", id)
	}
}

func TestMembershipErrors(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, equalNodes(3))
	require.NoError(t, err)
	tests := []struct {
		name string
		op   func() (*hashring.Ring, error)
		want error
	}{
		{"add member", func() (*hashring.Ring, error) { return r.Add(hashring.Node{ID: "node-0001", Weight: 1}) }, hashring.ErrDuplicateNode},
		{"add twice", func() (*hashring.Ring, error) {
			return r.Add(hashring.Node{ID: "x", Weight: 1}, hashring.Node{ID: "x", Weight: 1})
		}, hashring.ErrDuplicateNode},
		{"add bad weight", func() (*hashring.Ring, error) { return r.Add(hashring.Node{ID: "x", Weight: -2}) }, hashring.ErrBadWeight},
		{"remove unknown", func() (*hashring.Ring, error) { return r.Remove("nope") }, hashring.ErrUnknownNode},
		{"remove twice", func() (*hashring.Ring, error) { return r.Remove("node-0001", "node-0001") }, hashring.ErrUnknownNode},
		{"reweight unknown", func() (*hashring.Ring, error) { return r.Reweight("nope", 1) }, hashring.ErrUnknownNode},
		{"reweight bad", func() (*hashring.Ring, error) { return r.Reweight("node-0001", math.Inf(1)) }, hashring.ErrBadWeight},
		{"update duplicate", func() (*hashring.Ring, error) {
			return r.Update([]hashring.Node{{ID: "a", Weight: 1}, {ID: "a", Weight: 1}})
		}, hashring.ErrDuplicateNode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.op()
			require.ErrorIs(t, err, tt.want)
			assert.Nil(t, got)
			var ne *hashring.NodeError
			require.True(t, errors.As(err, &ne))
			assert.NotEmpty(t, ne.Op)
		})
	}
	assert.Equal(t, 3, r.Len(), "a failed change leaves the ring alone")
}

func TestOrderIndependentAndImmutable(t *testing.T) {
	nodes := coreNodes(50, 1)
	a, err := hashring.New(hashring.Config{Slots: 1 << 12}, nodes)
	require.NoError(t, err)
	rev := make([]hashring.Node, len(nodes))
	for i, n := range nodes {
		rev[len(nodes)-1-i] = n
	}
	b, err := hashring.New(hashring.Config{Slots: 1 << 12}, rev)
	require.NoError(t, err)
	before := owners(t, a)
	assert.Equal(t, before, owners(t, b), "placement does not depend on input order")

	_, err = a.Remove(nodes[7].ID)
	require.NoError(t, err)
	_, err = a.Add(hashring.Node{ID: "zz", Weight: 80})
	require.NoError(t, err)
	_, err = a.Reweight(nodes[3].ID, 1)
	require.NoError(t, err)
	assert.Equal(t, before, owners(t, a), "deriving a ring leaves the parent unchanged")
	assert.Len(t, a.Nodes(), 50)
}

func TestUpdateEqualsSteps(t *testing.T) {
	nodes := coreNodes(20, 2)
	r, err := hashring.New(hashring.Config{Slots: 1 << 12}, nodes)
	require.NoError(t, err)
	next := append(equalNodes(0), nodes[1:]...)
	next[0].Weight = 126
	next = append(next, hashring.Node{ID: "fresh", Weight: 30})
	u, err := r.Update(next)
	require.NoError(t, err)
	assert.Equal(t, 20, u.Len())
	assert.False(t, u.Contains(nodes[0].ID))
	assert.True(t, u.Contains("fresh"))
	st := u.Stats()
	assert.LessOrEqual(t, st.MovedShare, 1.05*st.OptimalMovedShare+2.0/float64(st.Slots)*20)
	assert.Greater(t, st.MovedShare, 0.0)
}

func TestLookupN(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, coreNodes(10, 3))
	require.NoError(t, err)
	_, err = r.LookupN("k", 0)
	require.ErrorIs(t, err, hashring.ErrBadCount)
	for i := range 2000 {
		key := fmt.Sprint("key-", i)
		owner, err := r.Lookup(key)
		require.NoError(t, err)
		for _, n := range []int{1, 3, 10, 50} {
			got, err := r.LookupN(key, n)
			require.NoError(t, err)
			require.Len(t, got, min(n, 10))
			assert.Equal(t, owner, got[0], "owner first")
			seen := map[string]bool{}
			for _, id := range got {
				assert.True(t, r.Contains(id))
				assert.False(t, seen[id], "distinct")
				seen[id] = true
			}
		}
	}
}

func TestLookupNTinyNode(t *testing.T) {
	// A node with a one-slot share is still found as a replica.
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, []hashring.Node{{ID: "big", Weight: 255}, {ID: "tiny", Weight: 1}})
	require.NoError(t, err)
	got, err := r.LookupN("k", 2)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"big", "tiny"}, got)
	// A node too light for one slot owns nothing and is never returned.
	r, err = hashring.New(hashring.Config{Slots: 1 << 8}, []hashring.Node{{ID: "big", Weight: 1e9}, {ID: "dust", Weight: 1}})
	require.NoError(t, err)
	share, ok := r.Share("dust")
	assert.True(t, ok)
	assert.Zero(t, share)
	got, err = r.LookupN("k", 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"big"}, got)
}

func TestLookupDoesNotAllocate(t *testing.T) {
	r, err := hashring.New(hashring.Config{}, coreNodes(100, 4))
	require.NoError(t, err)
	dst := make([]string, 0, 3)
	var loads hashring.Loads
	loads.Acquire("host-0001")
	allocs := testing.AllocsPerRun(1000, func() {
		_, _ = r.Lookup("some-key")
		_, _ = r.LookupHash(12345)
		dst = r.AppendLookupNHash(dst[:0], 99, 3)
		_, _ = r.LookupBounded("some-key", 1.25, &loads)
	})
	assert.Zero(t, allocs)
}

func TestShareAndStats(t *testing.T) {
	nodes := coreNodes(100, 5)
	r, err := hashring.New(hashring.Config{}, nodes)
	require.NoError(t, err)
	sum := 0.0
	for _, n := range nodes {
		s, ok := r.Share(n.ID)
		require.True(t, ok)
		sum += s
	}
	assert.InDelta(t, 1, sum, 1e-9)
	_, ok := r.Share("nope")
	assert.False(t, ok)
	st := r.Stats()
	assert.Equal(t, 100, st.Nodes)
	assert.Equal(t, hashring.DefaultSlots, st.Slots)
	assert.Zero(t, st.MovedShare, "a built ring moved nothing")
	assert.GreaterOrEqual(t, st.MaxShareRatio, 1.0)
	assert.LessOrEqual(t, st.MaxShareRatio, 1.02)

	none, err := r.Update(nil)
	require.NoError(t, err)
	assert.Equal(t, 1.0, none.Stats().MovedShare)
	assert.Equal(t, 1.0, none.Stats().OptimalMovedShare)
}

func TestHugeAndTinyWeights(t *testing.T) {
	r, err := hashring.New(hashring.Config{Slots: 1 << 8}, []hashring.Node{
		{ID: "huge", Weight: math.MaxFloat64 / 2}, {ID: "tiny", Weight: math.SmallestNonzeroFloat64}, {ID: "big", Weight: 1e300},
	})
	require.NoError(t, err)
	share, _ := r.Share("huge")
	assert.Equal(t, 1.0, share)
	id, err := r.Lookup("k")
	require.NoError(t, err)
	assert.Equal(t, "huge", id)
	r, err = r.Reweight("big", math.MaxFloat64/2)
	require.NoError(t, err)
	share, _ = r.Share("big")
	assert.Equal(t, 0.5, share)
}
