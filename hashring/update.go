package hashring

import (
	"slices"
)

// Add returns a new ring with nodes added. It moves about the new nodes' share of
// the keys, all of it onto the new nodes (with nodes lighter than a slot, a slot
// may rarely move between old nodes too). The receiver is unchanged. It returns a
// *[NodeError] wrapping [ErrDuplicateNode] if a node is already a member.
func (r *Ring) Add(nodes ...Node) (*Ring, error) {
	next := slices.Clone(r.nodes)
	for _, n := range nodes {
		if r.Contains(n.ID) {
			return nil, &NodeError{Op: "add", ID: n.ID, Weight: n.Weight, Err: ErrDuplicateNode}
		}
		next = append(next, n)
	}
	return r.change("add", next)
}

// Remove returns a new ring without the nodes ids. Only the keys of the removed nodes
// move (within one slot per node). It returns a *[NodeError] wrapping
// [ErrUnknownNode] if an id is not a member, or is listed twice.
func (r *Ring) Remove(ids ...string) (*Ring, error) {
	drop := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !r.Contains(id) || drop[id] {
			return nil, &NodeError{Op: "remove", ID: id, Err: ErrUnknownNode}
		}
		drop[id] = true
	}
	next := make([]Node, 0, len(r.nodes))
	for _, n := range r.nodes {
		if !drop[n.ID] {
			next = append(next, n)
		}
	}
	return r.change("remove", next)
}

// Reweight returns a new ring where node id has weight w. It moves about the share
// that the change shifts. It returns a *[NodeError] wrapping [ErrUnknownNode] or
// [ErrBadWeight].
func (r *Ring) Reweight(id string, w float64) (*Ring, error) {
	i := r.index(id)
	if i < 0 {
		return nil, &NodeError{Op: "reweight", ID: id, Weight: w, Err: ErrUnknownNode}
	}
	next := slices.Clone(r.nodes)
	next[i].Weight = w
	return r.change("reweight", next)
}

// Update returns a new ring whose members are exactly nodes: members not listed
// leave, new IDs join and changed weights apply, all in one step that moves about the
// share that changes. Use it to apply a full weight table published by a control
// plane. It returns a *[NodeError] for a bad or duplicate node.
func (r *Ring) Update(nodes []Node) (*Ring, error) {
	return r.change("update", slices.Clone(nodes))
}

// change validates next (any order) and derives the ring.
func (r *Ring) change(op string, next []Node) (*Ring, error) {
	slices.SortFunc(next, compareID)
	if err := checkNodes(op, next); err != nil {
		return nil, err
	}
	from := make([]int, len(next))
	for i, n := range next {
		from[i] = r.index(n.ID)
	}
	return r.derive(next, from)
}
