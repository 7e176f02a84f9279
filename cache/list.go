package cache

// queueID says which policy queue a node is in.
type queueID uint8

const (
	queueNone      queueID = iota // not in the policy: never added, evicted or removed
	queueWindow                   // admission window (LRU)
	queueProbation                // main space, seen once in main (LRU)
	queueProtected                // main space, hit while in main (LRU)
)

// list is a doubly linked LRU queue of nodes: front is the most recently used,
// back the eviction end. Not safe for concurrent use: the policy lock guards it
// and the links of its nodes.
type list[K comparable] struct {
	root node[K] // sentinel: root.next is the front, root.prev the back
	len  int
	cap  int // target size; the policy enforces it
	id   queueID
}

func (l *list[K]) init(id queueID, capacity int) {
	l.root.next, l.root.prev = &l.root, &l.root
	l.len, l.cap, l.id = 0, capacity, id
}

// back returns the least recently used node, or nil.
func (l *list[K]) back() *node[K] {
	if l.len == 0 {
		return nil
	}
	return l.root.prev
}

// newer returns the neighbour of n towards the front, or nil at the front.
func (l *list[K]) newer(n *node[K]) *node[K] {
	if n.prev == &l.root {
		return nil
	}
	return n.prev
}

func (l *list[K]) pushFront(n *node[K]) {
	n.prev, n.next = &l.root, l.root.next
	l.root.next.prev = n
	l.root.next = n
	n.queue = l.id
	l.len++
}

func (l *list[K]) remove(n *node[K]) {
	n.prev.next = n.next
	n.next.prev = n.prev
	n.prev, n.next = nil, nil
	n.queue = queueNone
	l.len--
}

func (l *list[K]) moveToFront(n *node[K]) {
	if l.root.next == n {
		return
	}
	n.prev.next = n.next
	n.next.prev = n.prev
	n.prev, n.next = &l.root, l.root.next
	l.root.next.prev = n
	l.root.next = n
}

// popBack removes and returns the back node, or nil.
func (l *list[K]) popBack() *node[K] {
	n := l.back()
	if n != nil {
		l.remove(n)
	}
	return n
}
