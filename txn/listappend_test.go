package txn_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// checkListAppend is a black-box checker in the style of Elle's list-append
// workload: it uses only what transactions read, how they ended and the
// final lists, never commit versions. For a history without deletions it
// reports: appends of aborted transactions that are visible, appends of
// committed ones that are lost or duplicated, reads that are not a prefix of
// the final list (no single order of appends explains them), and cycles in
// the dependency graph of write-write, write-read and read-write
// (anti-dependency) edges, which mean no serial order exists. Transactions
// of unknown outcome count as committed exactly when their appends are
// visible.
func checkListAppend(hist []*htx, final map[string]string) []string {
	lists, pos, bad := appendIndex(final) // pos: appended value -> index in its final list
	writer := map[int]int{}               // appended value -> transaction id
	byID := map[int]*htx{}
	for _, h := range hist {
		byID[h.id] = h
		for _, o := range h.ops {
			if o.kind != 'a' {
				continue
			}
			writer[o.val] = h.id
			_, visible := pos[o.val]
			switch {
			case h.outcome == 'a' && visible:
				bad = append(bad, fmt.Sprintf("txn %d aborted, its append %d is visible", h.id, o.val))
			case h.outcome == 'c' && !visible:
				bad = append(bad, fmt.Sprintf("txn %d committed, its append %d is lost", h.id, o.val))
			}
		}
	}
	live := func(id int) bool {
		h := byID[id]
		if h.outcome == 'c' {
			return true
		}
		for _, o := range h.ops {
			if _, ok := pos[o.val]; o.kind == 'a' && ok {
				return true
			}
		}
		return false
	}
	edges := map[int]map[int]bool{}
	edge := func(a, b int) {
		if a != b && live(a) && live(b) {
			if edges[a] == nil {
				edges[a] = map[int]bool{}
			}
			edges[a][b] = true
		}
	}
	for _, l := range lists {
		for i := 1; i < len(l); i++ {
			edge(writer[l[i-1]], writer[l[i]]) // ww
		}
	}
	for _, h := range hist {
		if !live(h.id) {
			continue
		}
		for _, o := range h.ops {
			if o.kind != 'g' && o.kind != 'a' {
				continue
			}
			seen := parseList(o.got)
			fl := lists[o.key]
			if len(seen) > len(fl) || !slices.Equal(seen, fl[:len(seen)]) {
				bad = append(bad, fmt.Sprintf("txn %d read %s=%v, not a prefix of the final %v", h.id, o.key, seen, fl))
				continue
			}
			if len(seen) > 0 {
				edge(writer[seen[len(seen)-1]], h.id) // wr
			}
			if len(seen) < len(fl) {
				edge(h.id, writer[fl[len(seen)]]) // rw: it missed the next append
			}
		}
	}
	if c := findCycle(edges); c != nil {
		bad = append(bad, fmt.Sprintf("dependency cycle among transactions %v", c))
	}
	return bad
}

// appendIndex maps every value of the final lists to its position, and
// reports values that appear twice.
func appendIndex(final map[string]string) (lists map[string][]int, pos map[int]int, bad []string) {
	lists, pos = map[string][]int{}, map[int]int{}
	for k, v := range final {
		l := parseList(v)
		lists[k] = l
		for i, x := range l {
			if _, dup := pos[x]; dup {
				bad = append(bad, fmt.Sprintf("value %d appears twice", x))
			}
			pos[x] = i
		}
	}
	return lists, pos, bad
}

func parseList(s string) []int {
	if s == "" || s == "<none>" {
		return nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// findCycle returns the nodes of a cycle in g, or nil.
func findCycle(g map[int]map[int]bool) []int {
	const (
		white = iota
		grey
		black
	)
	color := map[int]int{}
	var stack []int
	var cycle []int
	var visit func(n int) bool
	visit = func(n int) bool {
		color[n] = grey
		stack = append(stack, n)
		for _, m := range slices.Sorted(maps.Keys(g[n])) {
			switch color[m] {
			case grey:
				i := slices.Index(stack, m)
				cycle = append([]int{}, stack[i:]...)
				return true
			case white:
				if visit(m) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
		return false
	}
	for _, n := range slices.Sorted(maps.Keys(g)) {
		if color[n] == white && visit(n) {
			return cycle
		}
	}
	return nil
}
