package cache

// queueID says which policy queue a node is in.
type queueID uint8

const (
	queueNone      queueID = iota // not in the policy: never added, evicted or removed
	queueWindow                   // admission window (LRU)
	queueProbation                // main space, seen once in main (LRU)
	queueProtected                // main space, hit while in main (LRU)
)

// list is a doubly linked LRU queue of nodes, linked through their links:
// front is the most recently used, back the eviction end. Not safe for
// concurrent use: the policy lock guards it and the links of its nodes. Every
// node in a list has links (policy.add gives them); the sentinel's are rootL.
type list[K comparable, V any] struct {
	root  node[K, V]  // sentinel: root.l.next is the front, root.l.prev the back
	rootL links[K, V] // root's links
	len   int
	cap   int // target size; the policy enforces it
	id    queueID
}

func (l *list[K, V]) init(id queueID, capacity int) {
	l.root.l = &l.rootL
	l.rootL.next, l.rootL.prev = &l.root, &l.root
	l.len, l.cap, l.id = 0, capacity, id
}

// back returns the least recently used node, or nil.
func (l *list[K, V]) back() *node[K, V] {
	if l.len == 0 {
		return nil
	}
	return l.root.l.prev
}

// newer returns the neighbour of n towards the front, or nil at the front.
func (l *list[K, V]) newer(n *node[K, V]) *node[K, V] {
	if n.l.prev == &l.root {
		return nil
	}
	return n.l.prev
}

func (l *list[K, V]) pushFront(n *node[K, V]) {
	n.l.prev, n.l.next = &l.root, l.root.l.next
	l.root.l.next.l.prev = n
	l.root.l.next = n
	n.l.queue = l.id
	l.len++
}

func (l *list[K, V]) remove(n *node[K, V]) {
	n.l.prev.l.next = n.l.next
	n.l.next.l.prev = n.l.prev
	n.l.prev, n.l.next = nil, nil
	n.l.queue = queueNone
	l.len--
}

func (l *list[K, V]) moveToFront(n *node[K, V]) {
	if l.root.l.next == n {
		return
	}
	n.l.prev.l.next = n.l.next
	n.l.next.l.prev = n.l.prev
	n.l.prev, n.l.next = &l.root, l.root.l.next
	l.root.l.next.l.prev = n
	l.root.l.next = n
}

// popBack removes and returns the back node, or nil.
func (l *list[K, V]) popBack() *node[K, V] {
	n := l.back()
	if n != nil {
		l.remove(n)
	}
	return n
}
