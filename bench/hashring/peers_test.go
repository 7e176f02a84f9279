package hashringbench

import (
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	buraksezer "github.com/buraksezer/consistent"
	"github.com/cespare/xxhash/v2"
	jump "github.com/dgryski/go-jump"
	maglev "github.com/dgryski/go-maglev"
	rendezvous "github.com/dgryski/go-rendezvous"
	"github.com/golang/groupcache/consistenthash"
	lafikl "github.com/lafikl/consistent"
	"github.com/serialx/hashring"
	stathat "stathat.com/c/consistent"

	tierkit "github.com/tierkit/tierkit/hashring"
)

// member is a node of the comparison: an ID and an integer weight ("cores"), the
// form every weighted peer accepts.
type member struct {
	id     string
	weight int
}

// router is what the harness needs from each implementation. Changes return the
// router to use afterwards; peers that mutate in place return themselves.
type router interface {
	lookup(key string) string
	remove(id string) router
	add(m member) router
	// reweight is nil-safe: implementations without weights return nil.
	reweight(m member) router
}

// impl names an implementation and how to build it.
type impl struct {
	name     string
	weighted bool // accepts per-node weights
	// note says how the implementation is configured or what it cannot do.
	note  string
	build func(ms []member) router
}

var impls = []impl{
	{"tierkit", true, "2^18-slot table (default Config)", buildTierkit},
	{"serialx", true, "weight = points on the ring (equal weights: 100 points each)", buildSerialx},
	{"buraksezer", false, "PartitionCount 7919, ReplicationFactor 20, Load 1.25, xxhash", buildBuraksezer},
	{"stathat", false, "default 20 replicas, crc32", buildStathat},
	{"groupcache", false, "50 replicas (groupcache's HTTPPool default), crc32", buildGroupcache},
	{"go-jump", false, "xxhash then jump; can only add or remove the last bucket", buildJump},
	{"go-rendezvous", false, "xxhash; O(n) per lookup", buildRendezvous},
	{"go-maglev", false, "M=65537 (655373 at 1000 nodes, M >= 100n); xxhash key (siphash names the nodes)", buildMaglev},
	{"lafikl", false, "bounded-load ring, plain Get, blake2b, 10 replicas", buildLafikl},
}

// ---- tierkit

type tierkitRouter struct{ r *tierkit.Ring }

func buildTierkit(ms []member) router {
	nodes := make([]tierkit.Node, len(ms))
	for i, m := range ms {
		nodes[i] = tierkit.Node{ID: m.id, Weight: float64(m.weight)}
	}
	r, err := tierkit.New(tierkit.Config{}, nodes)
	if err != nil {
		panic(err)
	}
	return tierkitRouter{r}
}

func (t tierkitRouter) lookup(key string) string { id, _ := t.r.Lookup(key); return id }
func (t tierkitRouter) remove(id string) router  { return tierkitRouter{must(t.r.Remove(id))} }
func (t tierkitRouter) add(m member) router {
	return tierkitRouter{must(t.r.Add(tierkit.Node{ID: m.id, Weight: float64(m.weight)}))}
}
func (t tierkitRouter) reweight(m member) router {
	return tierkitRouter{must(t.r.Reweight(m.id, float64(m.weight)))}
}

func must(r *tierkit.Ring, err error) *tierkit.Ring {
	if err != nil {
		panic(err)
	}
	return r
}

// ---- serialx/hashring: weights are the number of points per node.

type serialxRouter struct{ r *hashring.HashRing }

func buildSerialx(ms []member) router {
	w := make(map[string]int, len(ms))
	for _, m := range ms {
		w[m.id] = m.weight
	}
	return serialxRouter{hashring.NewWithWeights(w)}
}

func (s serialxRouter) lookup(key string) string { id, _ := s.r.GetNode(key); return id }
func (s serialxRouter) remove(id string) router  { return serialxRouter{s.r.RemoveNode(id)} }
func (s serialxRouter) add(m member) router {
	return serialxRouter{s.r.AddWeightedNode(m.id, m.weight)}
}
func (s serialxRouter) reweight(m member) router {
	return serialxRouter{s.r.UpdateWeightedNode(m.id, m.weight)}
}

// ---- buraksezer/consistent: partitions with bounded load; mutates in place.

type bsMember string

func (m bsMember) String() string { return string(m) }

type xxHasher struct{}

func (xxHasher) Sum64(b []byte) uint64 { return xxhash.Sum64(b) }

type buraksezerRouter struct{ c *buraksezer.Consistent }

func buildBuraksezer(ms []member) router {
	members := make([]buraksezer.Member, len(ms))
	for i, m := range ms {
		members[i] = bsMember(m.id)
	}
	return buraksezerRouter{buraksezer.New(members, buraksezer.Config{
		Hasher: xxHasher{}, PartitionCount: 7919, ReplicationFactor: 20, Load: 1.25,
	})}
}

// lookup hands LocateKey the string's bytes without a copy: it only hashes
// them, and a []byte(key) copy escaping into the hasher would be an allocation
// per lookup that the harness adds and no other implementation pays.
func (b buraksezerRouter) lookup(key string) string {
	return b.c.LocateKey(unsafe.Slice(unsafe.StringData(key), len(key))).String()
}
func (b buraksezerRouter) remove(id string) router { b.c.Remove(id); return b }
func (b buraksezerRouter) add(m member) router     { b.c.Add(bsMember(m.id)); return b }
func (b buraksezerRouter) reweight(member) router  { return nil }

// ---- stathat.com/c/consistent; mutates in place.

type stathatRouter struct{ c *stathat.Consistent }

func buildStathat(ms []member) router {
	c := stathat.New()
	for _, m := range ms {
		c.Add(m.id)
	}
	return stathatRouter{c}
}

func (s stathatRouter) lookup(key string) string { id, _ := s.c.Get(key); return id }
func (s stathatRouter) remove(id string) router  { s.c.Remove(id); return s }
func (s stathatRouter) add(m member) router      { s.c.Add(m.id); return s }
func (s stathatRouter) reweight(member) router   { return nil }

// ---- groupcache/consistenthash: add-only; a removal rebuilds.

type groupcacheRouter struct {
	m   *consistenthash.Map
	ids []string
}

func buildGroupcache(ms []member) router {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.id
	}
	return newGroupcache(ids)
}

func newGroupcache(ids []string) groupcacheRouter {
	m := consistenthash.New(50, nil)
	m.Add(ids...)
	return groupcacheRouter{m, ids}
}

func (g groupcacheRouter) lookup(key string) string { return g.m.Get(key) }
func (g groupcacheRouter) remove(id string) router {
	return newGroupcache(slices.DeleteFunc(slices.Clone(g.ids), func(s string) bool { return s == id }))
}
func (g groupcacheRouter) add(m member) router {
	return newGroupcache(append(slices.Clone(g.ids), m.id))
}
func (g groupcacheRouter) reweight(member) router { return nil }

// ---- dgryski/go-jump: buckets 0..n-1; only the last bucket can leave.

type jumpRouter struct{ ids []string }

func buildJump(ms []member) router {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.id
	}
	return jumpRouter{ids}
}

func (j jumpRouter) lookup(key string) string {
	return j.ids[jump.Hash(xxhash.Sum64String(key), len(j.ids))]
}

// remove drops the last bucket whatever id is asked for: it is the only removal
// jump hashing supports without remapping (the harness records this in the note).
func (j jumpRouter) remove(string) router   { return jumpRouter{j.ids[:len(j.ids)-1]} }
func (j jumpRouter) add(m member) router    { return jumpRouter{append(slices.Clone(j.ids), m.id)} }
func (j jumpRouter) reweight(member) router { return nil }

// ---- dgryski/go-rendezvous.

type rendezvousRouter struct {
	r   *rendezvous.Rendezvous
	ids []string
}

func buildRendezvous(ms []member) router {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.id
	}
	return newRendezvous(ids)
}

func newRendezvous(ids []string) rendezvousRouter {
	return rendezvousRouter{rendezvous.New(ids, xxhash.Sum64String), ids}
}

func (r rendezvousRouter) lookup(key string) string { return r.r.Lookup(key) }

// remove rebuilds: the library's Remove panics (STYLE.md, anti-pattern 3).
func (r rendezvousRouter) remove(id string) router {
	return newRendezvous(slices.DeleteFunc(slices.Clone(r.ids), func(s string) bool { return s == id }))
}
func (r rendezvousRouter) add(m member) router {
	return newRendezvous(append(slices.Clone(r.ids), m.id))
}
func (r rendezvousRouter) reweight(member) router { return nil }

// ---- dgryski/go-maglev: a leave is Rebuild with the node marked dead.

type maglevRouter struct {
	t    *maglev.Table
	m    uint64 // table size, fixed for the life of the fleet
	ids  []string
	dead []int
}

func maglevM(n int) uint64 {
	if n > 100 {
		return maglev.BigM
	}
	return maglev.SmallM
}

func buildMaglev(ms []member) router {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.id
	}
	m := maglevM(len(ids))
	return maglevRouter{maglev.New(ids, m), m, ids, nil}
}

func (m maglevRouter) lookup(key string) string {
	return m.ids[m.t.Lookup(xxhash.Sum64String(key))]
}

// remove is one Rebuild with the node dead, on a copy of the table so that m
// keeps routing as before (Rebuild replaces the lookup slice; the offsets it
// shares it resets before use). maglev.New would populate the table a second
// time.
func (m maglevRouter) remove(id string) router {
	t := *m.t
	dead := append(slices.Clone(m.dead), slices.Index(m.ids, id))
	slices.Sort(dead)
	t.Rebuild(dead)
	return maglevRouter{&t, m.m, m.ids, dead}
}

func (m maglevRouter) add(nm member) router {
	ids := append(slices.Clone(m.ids), nm.id)
	return maglevRouter{maglev.New(ids, m.m), m.m, ids, nil}
}
func (m maglevRouter) reweight(member) router { return nil }

// ---- lafikl/consistent; mutates in place.

type lafiklRouter struct{ c *lafikl.Consistent }

func buildLafikl(ms []member) router {
	c := lafikl.New()
	for _, m := range ms {
		c.Add(m.id)
	}
	return lafiklRouter{c}
}

func (l lafiklRouter) lookup(key string) string { id, _ := l.c.Get(key); return id }
func (l lafiklRouter) remove(id string) router  { l.c.Remove(id); return l }
func (l lafiklRouter) add(m member) router      { l.c.Add(m.id); return l }
func (l lafiklRouter) reweight(member) router   { return nil }

// ---- fleets

// equalFleet returns n members of equal weight.
func equalFleet(n int) []member {
	ms := make([]member, n)
	for i := range ms {
		ms[i] = member{fmt.Sprintf("10.0.%d.%d:6379", i/250, i%250), 100}
	}
	return ms
}

// coreFleet returns n members weighted like hosts of 26 to 126 cores.
func coreFleet(n int) []member {
	ms := equalFleet(n)
	x := uint64(n) * 0x9e3779b97f4a7c15
	for i := range ms {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		ms[i].weight = 26 + int(x%101)
	}
	return ms
}

// key returns the i-th measurement key.
func key(i int) string { return "user:" + strconv.Itoa(i) }
