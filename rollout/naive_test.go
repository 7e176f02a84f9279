package rollout_test

import (
	"math"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/tierkit/tierkit/rollout"
)

// naiveDecide is the reference: scan every rule, keep the longest matching prefix,
// hash on the fly. It is what Decide must agree with, and the benchmark baseline.
func naiveDecide(cfg rollout.Config, q rollout.Query) rollout.Decision {
	if cfg.Kill {
		return rollout.Decision{Reason: rollout.ReasonKilled, Rule: -1}
	}
	best := -1
	for i, r := range cfg.Rules {
		if r.Service == q.Service && strings.HasPrefix(q.Key, r.Prefix) {
			if best < 0 || len(r.Prefix) > len(cfg.Rules[best].Prefix) {
				best = i
			}
		}
	}
	if best < 0 {
		return rollout.Decision{Reason: rollout.ReasonNoRule, Rule: -1}
	}
	r := cfg.Rules[best]
	if len(r.Regions) > 0 && !slices.Contains(r.Regions, q.Region) {
		return rollout.Decision{Reason: rollout.ReasonRegion, Rule: best}
	}
	salt := r.Salt
	if salt == "" {
		salt = r.Service
	}
	unit := q.Unit
	if unit == "" {
		unit = q.Key
	}
	h := xxhash.Sum64String(unit) ^ xxhash.Sum64String(salt)
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	b := uint32(h % 10000)
	if b < uint32(math.Round(r.Percent*100)) {
		return rollout.Decision{Use: true, Reason: rollout.ReasonRamped, Rule: best, Bucket: b}
	}
	return rollout.Decision{Reason: rollout.ReasonHeld, Rule: best, Bucket: b}
}
