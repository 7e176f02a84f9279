package hashring_test

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/tierkit/tierkit/hashring"
)

// atomicRing is how a router publishes rings: lookups Load, the control loop Stores.
type atomicRing = atomic.Pointer[hashring.Ring]

func Example() {
	ring, err := hashring.New(hashring.Config{}, []hashring.Node{
		{ID: "host-a", Weight: 26}, // cores
		{ID: "host-b", Weight: 126},
		{ID: "host-c", Weight: 64},
	})
	if err != nil {
		panic(err)
	}
	owner, _ := ring.Lookup("user:42")
	replicas, _ := ring.LookupN("user:42", 2)
	fmt.Println(owner, replicas)
	share, _ := ring.Share("host-b")
	fmt.Printf("host-b owns %.3f of the keys (expected %.3f)\n", share, 126.0/216)
	// Output:
	// host-c [host-c host-a]
	// host-b owns 0.583 of the keys (expected 0.583)
}

// Rings are immutable: derive the next one and publish it with an atomic pointer.
// Lookups in flight keep using the ring they loaded; none of them locks.
func Example_atomicSwap() {
	var current atomic.Pointer[hashring.Ring]
	r, _ := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}, {ID: "c", Weight: 1}})
	current.Store(r)

	// Request path:
	owner, _ := current.Load().Lookup("order:4")
	fmt.Println("before:", owner)

	// Control loop: b leaves. Only b's keys move.
	next, err := current.Load().Remove("b")
	if err != nil {
		panic(err)
	}
	current.Store(next)
	owner, _ = current.Load().Lookup("order:4")
	st := next.Stats()
	fmt.Println("after:", owner)
	fmt.Printf("moved %.3f of the keys, optimum %.3f\n", st.MovedShare, st.OptimalMovedShare)
	// Output:
	// before: b
	// after: a
	// moved 0.333 of the keys, optimum 0.333
}

func ExampleRing_Update() {
	r, _ := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 50}, {ID: "b", Weight: 50}})
	// A control plane publishes a new weight table: a grows, c joins.
	next, _ := r.Update([]hashring.Node{{ID: "a", Weight: 60}, {ID: "b", Weight: 50}, {ID: "c", Weight: 40}})
	st := next.Stats()
	fmt.Printf("moved %.4f, optimum %.4f, max share/expected %.4f\n", st.MovedShare, st.OptimalMovedShare, st.MaxShareRatio)
	// Output:
	// moved 0.2667, optimum 0.2667, max share/expected 1.0000
}

func ExampleRing_LookupBounded() {
	r, _ := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}, {ID: "c", Weight: 1}})
	var loads hashring.Loads
	// One hot key, 9 requests in flight at once: with c = 1 no node may hold more
	// than ceil(1 x 9/3) = 3 of them, so the overflow spreads.
	perNode := map[string]int{}
	for range 9 {
		id, _ := r.LookupBounded("hot", 1, &loads)
		loads.Acquire(id) // Release(id) when the request ends
		perNode[id]++
	}
	fmt.Println(perNode)
	// Output:
	// map[a:3 b:3 c:3]
}

func ExampleNodeError() {
	r, _ := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}})
	_, err := r.Remove("zz")
	var ne *hashring.NodeError
	fmt.Println(errors.Is(err, hashring.ErrUnknownNode), errors.As(err, &ne) && ne.ID == "zz")
	fmt.Println(err)
	// Output:
	// true true
	// hashring: remove "zz": unknown node
}

// A control plane publishes the ring; a client that starts later loads it instead of
// rebuilding it from the current members (placement depends on the ring's history).
func ExampleUnmarshal() {
	r, _ := hashring.New(hashring.Config{}, []hashring.Node{{ID: "a", Weight: 1}, {ID: "b", Weight: 2}})
	r, _ = r.Add(hashring.Node{ID: "c", Weight: 1})
	data, _ := r.MarshalBinary()

	loaded, err := hashring.Unmarshal(data)
	if err != nil {
		panic(err) // hashring.ErrCorrupt: fetch again
	}
	want, _ := r.Lookup("user:7")
	got, _ := loaded.Lookup("user:7")
	fmt.Println(len(data), got == want)
	// Output:
	// 524334 true
}
