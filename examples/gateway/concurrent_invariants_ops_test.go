package main

// The operations of TestConcurrentInvariants' clients (concurrent_invariants_test.go):
// a private key's sequential model and the shared keys' checks.

import (
	"fmt"
	"slices"
	"strconv"
)

func (c *invClient) privGet(k string, v rval) string {
	p := c.priv[k]
	if !p.known {
		return ""
	}
	if !p.exists && !v.null || p.exists && (v.null || v.s != p.val) {
		return fmt.Sprintf("GET %s: %v, want %+v", k, v, *p)
	}
	return ""
}

// privOp is a random command on private keys.
func (c *invClient) privOp() invOp {
	k := c.keys[c.r.IntN(len(c.keys))]
	switch c.r.IntN(8) {
	case 0, 1:
		val := c.token(k)
		if c.r.IntN(3) == 0 {
			val = fmt.Sprint(c.r.IntN(100))
		}
		cmd := []string{"SET", k, val}
		nx, xx := false, false
		switch c.r.IntN(4) {
		case 0:
			cmd, nx = append(cmd, "NX"), true
		case 1:
			cmd, xx = append(cmd, "XX"), true
		}
		switch c.r.IntN(4) {
		case 0:
			cmd = append(cmd, "EX", "1000")
		case 1:
			cmd = append(cmd, "PX", "1000000")
		}
		return invOp{cmd, func(v rval) string {
			p := c.priv[k]
			if invRefused(v) {
				p.known = false
				return ""
			}
			ok := v.typ == '+' && v.s == "OK"
			if !ok && !v.null {
				return fmt.Sprintf("%v", v)
			}
			if p.known && ok != (!(nx && p.exists) && !(xx && !p.exists)) {
				return fmt.Sprintf("%v, want %+v", v, *p)
			}
			if ok {
				*p = invPriv{known: true, exists: true, val: val}
			}
			return ""
		}}
	case 2:
		return invOp{[]string{"GET", k}, func(v rval) string {
			if invRefused(v) {
				return ""
			}
			return c.privGet(k, v)
		}}
	case 3:
		ks := c.privKeys()
		return invOp{append([]string{"MGET"}, ks...), func(v rval) string {
			if invRefused(v) {
				return ""
			}
			if v.typ != '*' || len(v.elem) != len(ks) {
				return v.String()
			}
			for i, k := range ks {
				if d := c.privGet(k, v.elem[i]); d != "" {
					return d
				}
			}
			return ""
		}}
	case 4:
		ks := c.privKeys()
		return invOp{append([]string{"EXISTS"}, ks...), func(v rval) string {
			if invRefused(v) {
				return ""
			}
			want := 0
			for _, k := range ks {
				p := c.priv[k]
				if !p.known {
					return ""
				}
				if p.exists {
					want++
				}
			}
			if v.typ != ':' || v.s != strconv.Itoa(want) {
				return fmt.Sprintf("%v, want %d", v, want)
			}
			return ""
		}}
	case 5:
		ks := c.privKeys()
		return invOp{append([]string{"DEL"}, ks...), func(v rval) string {
			want, known := 0, true
			for _, k := range slices.Compact(slices.Sorted(slices.Values(ks))) {
				p := c.priv[k]
				known = known && p.known
				if p.exists {
					want++
				}
			}
			if invRefused(v) {
				for _, k := range ks {
					c.priv[k].known = false
				}
				return ""
			}
			if v.typ != ':' || known && v.s != strconv.Itoa(want) {
				return fmt.Sprintf("%v, want %d", v, want)
			}
			for _, k := range ks {
				*c.priv[k] = invPriv{known: true}
			}
			return ""
		}}
	case 6:
		d := int64(c.r.IntN(5) - 2)
		return invOp{[]string{"INCRBY", k, fmt.Sprint(d)}, func(v rval) string {
			p := c.priv[k]
			if invRefused(v) {
				p.known = false
				return ""
			}
			if !p.known {
				if v.typ == ':' {
					*p = invPriv{known: true, exists: true, val: v.s}
				}
				return ""
			}
			n := int64(0)
			if p.exists {
				var err error
				if n, err = strconv.ParseInt(p.val, 10, 64); err != nil {
					if v.typ != '-' {
						return fmt.Sprintf("%v, want an error on %q", v, p.val)
					}
					return ""
				}
			}
			n += d
			if v.typ != ':' || v.s != fmt.Sprint(n) {
				return fmt.Sprintf("%v, want %d", v, n)
			}
			*p = invPriv{known: true, exists: true, val: v.s}
			return ""
		}}
	default:
		cmd := []string{"MSET"}
		vals := map[string]string{}
		for range 1 + c.r.IntN(3) {
			k := c.keys[c.r.IntN(len(c.keys))]
			vals[k] = c.token(k)
			cmd = append(cmd, k, vals[k])
		}
		return invOp{cmd, func(v rval) string {
			if invRefused(v) {
				for k := range vals {
					c.priv[k].known = false
				}
				return ""
			}
			if v.typ != '+' {
				return v.String()
			}
			for k, val := range vals {
				*c.priv[k] = invPriv{known: true, exists: true, val: val}
			}
			return ""
		}}
	}
}

func (c *invClient) privKeys() []string {
	ks := make([]string, 1+c.r.IntN(3))
	for i := range ks {
		ks[i] = c.keys[c.r.IntN(len(c.keys))]
	}
	return ks
}

// sharedOp is a random command on shared keys, counters and the pair.
func (c *invClient) sharedOp() []invOp {
	switch c.r.IntN(12) {
	case 0, 1:
		k := c.st.shared[c.r.IntN(len(c.st.shared))]
		tok := c.token(k)
		c.st.wrote(tok)
		cmd := []string{"SET", k, tok}
		if c.r.IntN(3) == 0 {
			cmd = append(cmd, []string{"NX", "XX"}[c.r.IntN(2)])
		}
		return []invOp{{cmd, func(v rval) string {
			if v.typ == '+' || v.null || invRefused(v) {
				return ""
			}
			return v.String()
		}}}
	case 2:
		cmd := []string{"MSET"}
		for range 1 + c.r.IntN(3) {
			k := c.st.shared[c.r.IntN(len(c.st.shared))]
			tok := c.token(k)
			c.st.wrote(tok)
			cmd = append(cmd, k, tok)
		}
		return []invOp{{cmd, func(v rval) string {
			if v.typ == '+' || invRefused(v) {
				return ""
			}
			return v.String()
		}}}
	case 3:
		k := c.st.shared[c.r.IntN(len(c.st.shared))]
		return []invOp{{[]string{"DEL", k}, func(v rval) string {
			if v.typ == ':' || invRefused(v) {
				return ""
			}
			return v.String()
		}}}
	case 4:
		ks := []string{c.st.shared[c.r.IntN(len(c.st.shared))], c.st.shared[c.r.IntN(len(c.st.shared))]}
		if c.r.IntN(2) == 0 {
			return []invOp{{[]string{"GET", ks[0]}, func(v rval) string {
				if invRefused(v) {
					return ""
				}
				return c.sharedValue(ks[0], v)
			}}}
		}
		return []invOp{{append([]string{"MGET"}, ks...), func(v rval) string {
			if invRefused(v) {
				return ""
			}
			if v.typ != '*' || len(v.elem) != len(ks) {
				return v.String()
			}
			for i, k := range ks {
				if d := c.sharedValue(k, v.elem[i]); d != "" {
					return d
				}
			}
			return ""
		}}}
	case 5, 6:
		k := c.st.counters[c.r.IntN(len(c.st.counters))]
		if c.r.IntN(3) == 0 {
			return []invOp{{[]string{"GET", k}, func(v rval) string {
				if invRefused(v) {
					return ""
				}
				return c.counterValue(k, v)
			}}}
		}
		d := int64(1 + c.r.IntN(3))
		cmd := []string{"INCRBY", k, fmt.Sprint(d)}
		if d == 1 && c.r.IntN(2) == 0 {
			cmd = []string{"INCR", k}
		}
		return []invOp{{cmd, func(v rval) string {
			if invRefused(v) {
				return ""
			}
			n, err := strconv.ParseInt(v.s, 10, 64)
			if v.typ != ':' || err != nil {
				return v.String()
			}
			if n < c.floor[k]+d {
				return fmt.Sprintf("%s answered %d after %d", quoteCmd(cmd), n, c.floor[k])
			}
			c.floorNow[k] = max(c.floorNow[k], n)
			c.st.mu.Lock()
			defer c.st.mu.Unlock()
			c.st.incrSum[k] += d
			if c.st.incrSeen[k][n] {
				return fmt.Sprintf("%s answered %d twice", k, n)
			}
			c.st.incrSeen[k][n] = true
			return ""
		}}}
	case 7:
		tok := c.token("pair")
		c.st.wrote(tok)
		ok := func(v rval) string {
			if v.typ == '+' || invRefused(v) {
				return ""
			}
			return v.String()
		}
		return []invOp{{[]string{"MULTI"}, ok}, {[]string{"SET", c.st.pair[0], tok}, ok}, {[]string{"SET", c.st.pair[1], tok}, ok},
			{[]string{"EXEC"}, func(v rval) string {
				if v.typ == '*' || invRefused(v) || v.null {
					return ""
				}
				return v.String()
			}}}
	case 8, 10, 11:
		if c.r.IntN(2) == 0 {
			tok := c.token("mpair")
			c.st.wrote(tok)
			switch c.r.IntN(4) {
			case 0:
				return []invOp{{[]string{"DEL", c.st.mpair[0], c.st.mpair[1]}, func(v rval) string {
					if v.typ == ':' && v.s != "1" || invRefused(v) {
						return ""
					}
					return v.String()
				}}}
			case 1, 2:
				return []invOp{{[]string{"MSET", c.st.mpair[0], tok, c.st.mpair[1], tok}, func(v rval) string {
					if v.typ == '+' || invRefused(v) {
						return ""
					}
					return v.String()
				}}}
			}
			return []invOp{{[]string{"MGET", c.st.mpair[0], c.st.mpair[1]}, func(v rval) string {
				if invRefused(v) || c.cached {
					return ""
				}
				return c.pairValues(v)
			}}}
		}
		return []invOp{{[]string{"MGET", c.st.pair[0], c.st.pair[1]}, func(v rval) string {
			if invRefused(v) || c.cached {
				return ""
			}
			return c.pairValues(v)
		}}}
	default:
		ok := func(v rval) string {
			if v.typ == '+' || invRefused(v) {
				return ""
			}
			return v.String()
		}
		return []invOp{{[]string{"MULTI"}, ok}, {[]string{"GET", c.st.pair[0]}, ok}, {[]string{"GET", c.st.pair[1]}, ok},
			{[]string{"EXEC"}, func(v rval) string {
				if invRefused(v) || v.null || slices.ContainsFunc(v.elem, invRefused) {
					return ""
				}
				return c.pairValues(v)
			}}}
	}
}

// pairValues checks the reply of a read of both keys of the pair.
func (c *invClient) pairValues(v rval) string {
	if v.typ != '*' || len(v.elem) != 2 {
		return fmt.Sprintf("pair read: %v", v)
	}
	a, b := v.elem[0], v.elem[1]
	if a.null != b.null || a.s != b.s || !a.null && !c.st.isWritten(a.s) {
		return fmt.Sprintf("pair read: %v and %v, written together", a, b)
	}
	return ""
}
