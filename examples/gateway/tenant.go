package main

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// tenant is a use case: its policy and its counters.
type tenant struct {
	cfg      TenantConfig
	commands map[string]bool // nil: all
	quota    *quota
	series   []atomic.Pointer[cmdSeries] // by cmdSpec.idx, bound on first use
	// prio is the shed priority of each command, by cmdSpec.idx: the
	// tenant's priority, or its command_priorities entry. A table rather
	// than the map: no lookup per admitted command.
	prio []uint8

	requests, shed, throttled, denied, backendCalls atomic.Uint64
}

func newTenant(c TenantConfig) *tenant {
	t := &tenant{cfg: c, quota: newQuota(c.QuotaRate, c.QuotaBurst), series: make([]atomic.Pointer[cmdSeries], len(specs))}
	t.prio = make([]uint8, len(specs))
	for _, spec := range specs {
		p, ok := c.CommandPriorities[spec.name]
		if !ok {
			p = c.Priority
		}
		t.prio[spec.idx] = uint8(p)
	}
	if len(c.Commands) > 0 {
		t.commands = map[string]bool{}
		for _, cmd := range c.Commands {
			t.commands[cmd] = true
		}
	}
	return t
}

// upperPriorities returns tenant's command_priorities with upper-case names,
// in a new map (the caller's is left as it was), and rejects a name the
// gateway does not know (a misspelling would leave the command meant at the
// tenant's priority), a command that is never admitted (connection
// commands, MULTI, EXEC: a transaction is admitted at its commands'
// priority), a priority other than 0 or 1, and a name given twice in two
// cases.
func upperPriorities(tenant string, prios map[string]int) (map[string]int, error) {
	if len(prios) == 0 {
		return nil, nil
	}
	up := make(map[string]int, len(prios))
	for cmd, p := range prios {
		spec, err := knownCommand(tenant, "command_priorities", cmd)
		if err != nil {
			return nil, err
		}
		if !spec.admitted() {
			return nil, fmt.Errorf("gateway: tenant %q: command_priorities: %s is not admitted by shed (only data commands and WATCH have a priority)", tenant, spec.name)
		}
		if p < 0 || p > 1 {
			return nil, fmt.Errorf("gateway: tenant %q: command_priorities: %s: priority %d, want 0 or 1", tenant, spec.name, p)
		}
		if _, dup := up[spec.name]; dup {
			return nil, fmt.Errorf("gateway: tenant %q: command_priorities: %s given twice", tenant, spec.name)
		}
		up[spec.name] = p
	}
	return up, nil
}

// allowsArgs reports whether t may run the command of spec with args; it
// extracts the keys only when the tenant has key prefixes to check.
func (t *tenant) allowsArgs(spec *cmdSpec, args [][]byte) bool {
	if t.commands != nil && !t.commands[spec.name] {
		return false
	}
	if len(t.cfg.KeyPrefixes) == 0 || !spec.hasKeys() {
		return true
	}
	if spec.layout == keysRange {
		// Every key of [begin, end) must have one of the prefixes: two
		// bounds allowed by two prefixes may span other keys.
		return rangeCovered(string(args[1]), string(args[2]), t.cfg.KeyPrefixes)
	}
	return t.allows(spec.name, spec.keys(args))
}

// allowsWatch reports whether t may run WATCH with args: its keys are all
// of args[1:] (its layout names none, since it is not batched).
func (t *tenant) allowsWatch(args [][]byte) bool {
	keys := make([]string, 0, len(args)-1)
	for _, k := range args[1:] {
		keys = append(keys, string(k))
	}
	return t.allows("WATCH", keys)
}

// allows reports whether t may run cmd on keys.
func (t *tenant) allows(cmd string, keys []string) bool {
	if t.commands != nil && !t.commands[cmd] {
		return false
	}
	if len(t.cfg.KeyPrefixes) == 0 {
		return true
	}
	for _, k := range keys {
		if !slices.ContainsFunc(t.cfg.KeyPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			return false
		}
	}
	return true
}

// prefixEnd returns the least string above every string with prefix p, and
// false if there is none (p empty or all 0xff bytes): p without its trailing
// 0xff bytes, its last byte then incremented.
func prefixEnd(p string) (string, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xff {
			return p[:i] + string([]byte{p[i] + 1}), true
		}
	}
	return "", false
}

// rangeCovered reports whether every key of [begin, end) (end empty: no
// upper bound) has one of prefixes. The keys with a prefix p are the strings
// from p up to prefixEnd(p), so it walks from begin: the prefix of the key
// reached that holds the most keys after it covers them up to its end, where
// the walk goes on, until it passes end (covered) or reaches a key without a
// prefix. Each step leaves the keys of the prefix it took behind, so it takes
// each prefix once at most. One prefix covering the whole range was asked
// before: prefixes "log:2024-01" and "log:2024-02" were refused the range
// [log:2024-01, log:2024-03), every key of which is one of theirs.
func rangeCovered(begin, end string, prefixes []string) bool {
	at := begin
	for range len(prefixes) + 1 {
		reach, found := "", false
		for _, p := range prefixes {
			if !strings.HasPrefix(at, p) {
				continue
			}
			pe, ok := prefixEnd(p)
			if !ok {
				return true // every string from at on has p
			}
			if !found || pe > reach {
				reach, found = pe, true
			}
		}
		if !found {
			return false
		}
		if end != "" && end <= reach {
			return true
		}
		at = reach
	}
	return false
}
