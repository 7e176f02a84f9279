package rollout

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/tierkit/tierkit/internal/mix"
)

// Rule routes one slice of traffic to the gateway: requests of Service whose key starts
// with Prefix, from one of Regions, for Percent of the hashed population.
type Rule struct {
	// Service is the client service (use case) the rule applies to. Required.
	Service string
	// Prefix is the shard or key prefix the rule applies to; "" matches every key of
	// Service. When several rules of one service match a key, the longest prefix wins,
	// so a narrow rule ("user:vip:") overrides a broad one ("user:") for its keys only.
	Prefix string
	// Percent is the share of eligible traffic routed to the gateway, in [0, 100], with
	// a resolution of one basis point (0.01): it is rounded to the nearest one, so
	// 0.004 routes no one and 99.995 everyone. Raising it only adds traffic: a key or
	// client routed at p percent is still routed at every q >= p (same Salt).
	Percent float64
	// Regions limits the rule to clients in these regions (the blast radius). Empty
	// means every region; an empty region name in it is rejected. A request from a region not listed is not eligible, and
	// does not fall back to a rule of the service with a shorter prefix.
	Regions []string
	// Salt picks which population a ramp takes first. Empty means Service, so one
	// client is on the same side for every prefix of a service at equal percentages.
	// Change it to draw a fresh population (a new experiment).
	Salt string
}

// Config is the whole flag set. The zero value routes nothing.
type Config struct {
	// Rules are the routing rules. (Service, Prefix) pairs must be unique.
	Rules []Rule
	// Kill is the global kill switch: when true every decision says "do not use the
	// gateway" (ReasonKilled) whatever the rules say. It is the instant rollback:
	// flipping it back restores the exact previous routing because the rules are kept.
	Kill bool
}

// Percent resolution: decisions hash into [0, bpScale) and compare with the rule's
// basis points.
const bpScale = 10000

// linearMax is the number of rules of one service up to which a linear scan (sorted by
// prefix length, longest first) beats per-length map lookups.
const linearMax = 8

// validate reports the first contradiction in c, as an error wrapping ErrInvalidConfig.
func (c Config) validate() error {
	seen := make(map[[2]string]int, len(c.Rules))
	for i, r := range c.Rules {
		if r.Service == "" {
			return fmt.Errorf("rollout: rule %d: empty service: %w", i, ErrInvalidConfig)
		}
		if math.IsNaN(r.Percent) || r.Percent < 0 || r.Percent > 100 {
			return fmt.Errorf("rollout: rule %d (%s %q): percent %v outside [0, 100]: %w",
				i, r.Service, r.Prefix, r.Percent, ErrInvalidConfig)
		}
		for _, reg := range r.Regions {
			if reg == "" {
				return fmt.Errorf("rollout: rule %d (%s %q): empty region name: %w",
					i, r.Service, r.Prefix, ErrInvalidConfig)
			}
		}
		k := [2]string{r.Service, r.Prefix}
		if j, dup := seen[k]; dup {
			return fmt.Errorf("rollout: rules %d and %d: same service %q and prefix %q: %w",
				j, i, r.Service, r.Prefix, ErrInvalidConfig)
		}
		seen[k] = i
	}
	return nil
}

// table is a compiled Config: per service, rules sorted for longest-prefix match.
type table struct {
	cfg      *Config // the accepted Config, for Flags.Config
	kill     bool
	services map[string]*service
	rules    int
	swaps    uint64 // configurations accepted up to this one, itself included
}

type service struct {
	rules []crule     // sorted by prefix length, longest first
	byLen []lenBucket // used when len(rules) > linearMax; longest length first
	any   *crule      // rule with the empty prefix, if any
}

type lenBucket struct {
	n int
	m map[string]*crule
}

type crule struct {
	prefix  string
	bp      uint32
	seed    uint64
	regions []string
	index   int
}

// compile turns a validated Config into the lookup table Decide reads.
func compile(c Config) *table {
	t := &table{kill: c.Kill, services: make(map[string]*service), rules: len(c.Rules)}
	for i, r := range c.Rules {
		s := t.services[r.Service]
		if s == nil {
			s = &service{}
			t.services[r.Service] = s
		}
		salt := r.Salt
		if salt == "" {
			salt = r.Service
		}
		s.rules = append(s.rules, crule{
			prefix:  r.Prefix,
			bp:      uint32(math.Round(r.Percent * 100)),
			seed:    xxhash.Sum64String(salt),
			regions: slices.Clone(r.Regions),
			index:   i,
		})
	}
	for _, s := range t.services {
		slices.SortStableFunc(s.rules, func(a, b crule) int {
			if d := len(b.prefix) - len(a.prefix); d != 0 {
				return d
			}
			return strings.Compare(a.prefix, b.prefix)
		})
		if last := &s.rules[len(s.rules)-1]; last.prefix == "" {
			s.any = last
		}
		if len(s.rules) <= linearMax {
			continue
		}
		for i := range s.rules {
			r := &s.rules[i]
			if r.prefix == "" {
				continue
			}
			if n := len(s.byLen); n == 0 || s.byLen[n-1].n != len(r.prefix) {
				s.byLen = append(s.byLen, lenBucket{n: len(r.prefix), m: make(map[string]*crule)})
			}
			s.byLen[len(s.byLen)-1].m[r.prefix] = r
		}
	}
	return t
}

// match returns the rule of s with the longest prefix of key, or nil.
func (s *service) match(key string) *crule {
	if s.byLen == nil {
		for i := range s.rules {
			if strings.HasPrefix(key, s.rules[i].prefix) {
				return &s.rules[i]
			}
		}
		return nil
	}
	for _, b := range s.byLen {
		if len(key) < b.n {
			continue
		}
		if r, ok := b.m[key[:b.n]]; ok {
			return r
		}
	}
	return s.any
}

// allows reports whether region passes the rule's region filter.
func (r *crule) allows(region string) bool {
	if len(r.regions) == 0 {
		return true
	}
	for _, x := range r.regions {
		if x == region {
			return true
		}
	}
	return false
}

// bucket hashes unit into [0, bpScale) under the rule's seed. The splitmix64 finalizer
// decorrelates rules with different salts that see the same unit.
func bucket(seed uint64, unit string) uint32 {
	return uint32(mix.Mix64(xxhash.Sum64String(unit)^seed) % bpScale)
}
