package hashring_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// ringSnap is what a ring answered when FuzzRingOps first saw it.
type ringSnap struct {
	r      *hashring.Ring
	enc    []byte
	nodes  []hashring.Node
	stats  hashring.Stats
	cfg    hashring.Config
	answer []string
}

func snapRing(t *testing.T, r *hashring.Ring) ringSnap {
	enc, err := r.MarshalBinary()
	require.NoError(t, err)
	sn := ringSnap{r: r, enc: enc, nodes: r.Nodes(), stats: r.Stats(), cfg: r.Config()}
	for i := range 8 {
		key := fmt.Sprint("k", i)
		id, err := r.Lookup(key)
		sn.answer = append(sn.answer, fmt.Sprint(id, err))
		ids, err := r.LookupN(key, 3+i)
		sn.answer = append(sn.answer, fmt.Sprint(ids, err))
		id, err = r.LookupBounded(key, 1.25, nil)
		sn.answer = append(sn.answer, fmt.Sprint(id, err))
	}
	return sn
}

// checkLookups checks Lookup and LookupN of key on r, for any n.
func checkLookups(t *testing.T, r *hashring.Ring, key string, n int) {
	h := xxhash.Sum64String(key)
	owner, err := r.Lookup(key)
	got, errN := r.LookupN(key, n)
	if r.Len() == 0 {
		require.ErrorIs(t, err, hashring.ErrEmpty)
		if n < 1 { // either documented error fits
			require.True(t, errors.Is(errN, hashring.ErrBadCount) || errors.Is(errN, hashring.ErrEmpty), "%v", errN)
		} else {
			require.ErrorIs(t, errN, hashring.ErrEmpty)
		}
		require.Nil(t, got)
		require.Empty(t, r.AppendLookupNHash(nil, h, n))
		return
	}
	require.NoError(t, err)
	viaHash, err := r.LookupHash(h)
	require.NoError(t, err)
	require.Equal(t, owner, viaHash)
	share, ok := r.Share(owner)
	require.True(t, ok && share > 0, "owner %q owns no slot", owner)
	if n < 1 {
		require.ErrorIs(t, errN, hashring.ErrBadCount)
		require.Nil(t, got)
		require.Empty(t, r.AppendLookupNHash(nil, h, n))
		return
	}
	require.NoError(t, errN)
	slotOwners := 0
	for _, m := range r.Nodes() {
		if share, _ := r.Share(m.ID); share > 0 {
			slotOwners++
		}
	}
	require.Len(t, got, min(n, slotOwners), "LookupN(%q, %d)", key, n)
	require.Equal(t, owner, got[0], "LookupN(%q, %d) does not start with the owner", key, n)
	seen := map[string]bool{}
	for _, id := range got {
		require.False(t, seen[id], "LookupN(%q, %d) repeats %q: %v", key, n, id, got)
		seen[id] = true
		share, ok := r.Share(id)
		require.True(t, ok && share > 0, "replica %q owns no slot", id)
	}
	require.Equal(t, append([]string{"dst"}, got...), r.AppendLookupNHash([]string{"dst"}, h, n))
}

// loadsModel is what a Loads should count: in flight per node (present while
// the node has a counter), and the Acquire and decrementing Release calls.
type loadsModel struct {
	inFlight           map[string]int64
	acquires, releases uint64
}

// apply runs op (0 Acquire, 1 Release, 2 Forget) times times on id.
func (m *loadsModel) apply(t *testing.T, l *hashring.Loads, op byte, id string, times int) {
	for range times {
		switch op {
		case 0:
			l.Acquire(id)
			m.inFlight[id]++
			m.acquires++
		case 1:
			l.Release(id) // more than acquired: clamped at 0
			if m.inFlight[id] > 0 {
				m.inFlight[id]--
				m.releases++
			}
		default:
			v, counted := m.inFlight[id]
			want := counted && v == 0
			require.Equal(t, want, l.Forget(id), "Forget(%q) with %d in flight", id, v)
			if want {
				delete(m.inFlight, id)
			}
		}
	}
}

func (m *loadsModel) check(t *testing.T, l *hashring.Loads) {
	sum := int64(0)
	for _, id := range opsIDs {
		require.Equal(t, m.inFlight[id], l.Load(id), "Load(%q)", id)
		sum += m.inFlight[id]
	}
	require.Equal(t, sum, l.Total())
	want := hashring.LoadStats{InFlight: sum, Acquires: m.acquires, Releases: m.releases, Nodes: len(m.inFlight)}
	require.Equal(t, want, l.Stats())
}

// bounded runs up to 32 bounded-load lookups with any c against the Loads or no
// load, of one key or of several, checks them, and may Acquire the nodes they
// return.
func (s *opsState) bounded(in *opReader) {
	key, c, mode, times := int(in.next()), opsFactors[int(in.next())%len(opsFactors)], in.next(), 1+int(in.next()%32)
	for range times {
		if mode&8 == 0 { // several keys, not one hot key
			key++
		}
		s.boundedOnce(fmt.Sprint("k", key), c, mode)
	}
}

// boundedOnce runs one bounded lookup of key with c: against the Loads (mode%3
// 0), a nil LoadReporter (1) or a nil *Loads (2), and Acquires the node returned
// if mode&4.
func (s *opsState) boundedOnce(key string, c float64, mode byte) {
	t, r := s.t, s.r
	var lr hashring.LoadReporter
	switch mode % 3 {
	case 0:
		lr = s.loads
	case 1:
		lr = nil
	default:
		lr = (*hashring.Loads)(nil)
	}
	id, err := r.LookupBounded(key, c, lr)
	viaHash, errH := r.LookupBoundedHash(xxhash.Sum64String(key), c, lr)
	require.Equal(t, id, viaHash)
	require.Equal(t, err, errH)
	if !(c >= 1) || math.IsInf(c, 0) {
		if r.Len() == 0 { // either documented error fits
			require.True(t, errors.Is(err, hashring.ErrBadLoadFactor) || errors.Is(err, hashring.ErrEmpty), "%v", err)
		} else {
			require.ErrorIs(t, err, hashring.ErrBadLoadFactor, "c = %v", c)
		}
		return
	}
	if r.Len() == 0 {
		require.ErrorIs(t, err, hashring.ErrEmpty)
		return
	}
	require.NoError(t, err)
	require.True(t, r.Contains(id), "%q is not a member", id)
	if mode%3 != 0 { // no load: the owner
		owner, _ := r.Lookup(key)
		require.Equal(t, owner, id)
		return
	}
	checkBoundRule(t, r, c, s.loads, id)
	if mode&4 != 0 {
		s.model.apply(t, s.loads, 0, id, 1)
		s.model.check(t, s.loads)
	}
}

// checkBoundRule checks that LookupBounded returned id by the documented rule:
// the bound of node i is ceil(c * (Total+1) * Weight_i / TotalWeight), and the
// node returned is below its bound whenever a member is. That is exact for
// integer weights and c = 1, 1.25, 1.5, 2...; otherwise the bound computed in
// floating point may be one off, so the node returned may be at its bound (not
// above it) when some member has room for two.
func checkBoundRule(t *testing.T, r *hashring.Ring, c float64, l *hashring.Loads, id string) {
	nodes := r.Nodes()
	scale := new(big.Rat).SetFloat64(c)
	scale.Mul(scale, new(big.Rat).SetInt64(l.Total()+1))
	scale.Quo(scale, new(big.Rat).SetFloat64(r.Stats().TotalWeight))
	nice := c*4 == math.Trunc(c*4) && c <= 16
	type nodeLoad struct{ load, bound *big.Int }
	var got nodeLoad
	all := make([]nodeLoad, len(nodes))
	fits, roomy := false, false
	for i, n := range nodes {
		nice = nice && n.Weight == math.Trunc(n.Weight) && n.Weight <= 1<<20
		x := new(big.Rat).Mul(scale, new(big.Rat).SetFloat64(n.Weight))
		b, rem := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
		if rem.Sign() > 0 {
			b.Add(b, big.NewInt(1))
		}
		all[i] = nodeLoad{big.NewInt(l.Load(n.ID)), b}
		fits = fits || all[i].load.Cmp(new(big.Int).Sub(b, big.NewInt(1))) <= 0
		roomy = roomy || all[i].load.Cmp(new(big.Int).Sub(b, big.NewInt(2))) <= 0
		if n.ID == id {
			got = all[i]
		}
	}
	switch {
	case nice && fits:
		require.True(t, got.load.Cmp(got.bound) < 0, "%q holds %v of its bound %v while a member had room (c %v)", id, got.load, got.bound, c)
	case nice: // every member is full: the least loaded relative to its bound
		for _, o := range all {
			lhs := new(big.Int).Mul(got.load, o.bound)
			require.True(t, lhs.Cmp(new(big.Int).Mul(o.load, got.bound)) <= 0, "%q is not the least full", id)
		}
	case roomy:
		require.True(t, got.load.Cmp(got.bound) <= 0, "%q holds %v, above its bound %v, while a member had room (c %v)", id, got.load, got.bound, c)
	}
}

// checkCorrupt checks that a damaged or truncated encoding of r is refused with a
// typed error, and that one with a recomputed checksum is refused or re-encodes
// to itself.
func checkCorrupt(t *testing.T, r *hashring.Ring, at, bit byte) {
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	bad := slices.Clone(data)
	bad[int(at)%len(bad)] ^= 1 << (bit % 8)
	_, err = hashring.Unmarshal(bad)
	require.ErrorIs(t, err, hashring.ErrCorrupt)
	_, err = hashring.Unmarshal(data[:int(at)*int(bit)%len(data)])
	require.ErrorIs(t, err, hashring.ErrCorrupt)
	checkUnmarshal(t, resum(bad[:len(bad)-8]))
}

// checkZeroRing checks the documented zero Ring: empty, with the default Config.
func checkZeroRing(t *testing.T) {
	var z hashring.Ring
	require.Zero(t, z.Len())
	require.Equal(t, hashring.Config{Slots: hashring.DefaultSlots}, z.Config())
	_, err := z.Lookup("k")
	require.ErrorIs(t, err, hashring.ErrEmpty)
	_, err = z.LookupN("k", 1)
	require.ErrorIs(t, err, hashring.ErrEmpty)
	_, err = z.LookupBounded("k", 1.25, new(hashring.Loads))
	require.ErrorIs(t, err, hashring.ErrEmpty)
	_, err = z.Remove("n00")
	require.ErrorIs(t, err, hashring.ErrUnknownNode)
	_, err = z.Reweight("n00", 1)
	require.ErrorIs(t, err, hashring.ErrUnknownNode)
	empty, err := z.Update(nil)
	require.NoError(t, err)
	require.Zero(t, empty.Len())
	checkRoundTripAny(t, &z)
}

// checkRoundTripAny is checkRoundTrip, with an empty ring's members compared by
// length (an empty ring may list them as nil, its decoding as an empty slice).
func checkRoundTripAny(t *testing.T, r *hashring.Ring) {
	if r.Len() > 0 {
		checkRoundTrip(t, r)
		return
	}
	data, err := r.MarshalBinary()
	require.NoError(t, err)
	back, err := hashring.Unmarshal(data)
	require.NoError(t, err)
	require.Zero(t, back.Len())
	require.Equal(t, r.Config(), back.Config())
}
