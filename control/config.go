package control

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// DefaultAuditSize is the number of audit entries kept when Config.AuditSize is 0.
const DefaultAuditSize = 1024

// Config holds the registry's tunables. The zero Config is valid: a 1024-entry
// audit log and no registry-wide change budget (per-knob MinInterval still
// applies).
type Config struct {
	// AuditSize bounds the audit log in entries (one per knob changed, each
	// keeping at most a KiB of its request's who and of its why); the
	// oldest entries are dropped first, and a batch that lost one can no
	// longer be rolled back: neither can a batch of more changes than
	// AuditSize, at once. 0 means DefaultAuditSize.
	AuditSize int

	// Rate is the registry-wide change budget in applied requests per second
	// (a token bucket; one token per applied request, whatever its number of
	// changes; dry runs, no-op requests and rollbacks are free). 0 means no
	// budget.
	Rate float64

	// Burst is the bucket size: how many requests may apply back to back.
	// 0 means 1 when Rate is set.
	Burst int

	// AllowedHosts, if set, lists the names the HTTP handler answers to: a
	// request whose Host header names another is refused with 403
	// forbidden_host, whatever its path. It guards a handler on loopback
	// against DNS rebinding, where a page of the attacker's domain, resolved
	// anew to 127.0.0.1, sends same-origin requests with that domain as Host.
	// Names compare without the port and case-insensitively, IPv6 addresses
	// without brackets: {"localhost", "127.0.0.1", "::1"}. IP addresses
	// compare as addresses: an IPv4-mapped IPv6 one ([::ffff:127.0.0.1]) is
	// its IPv4 address, and an IPv6 one matches however it is spelled. There are no
	// wildcards: an entry with "*" is an error. Empty means any Host, as
	// before the field existed.
	AllowedHosts []string
}

// SetConfig is shorthand for SetConfigAt(time.Now(), cfg).
func (r *Registry) SetConfig(cfg Config) error { return r.SetConfigAt(time.Now(), cfg) }

// SetConfigAt swaps the registry's tunables at time now. A smaller AuditSize
// drops the oldest entries at the next change. A change of Rate or Burst
// applies from now on: the change budget earned before now is credited at the
// old Rate, up to the old Burst. SetConfigAt does not wait for a change
// whose Apply funcs are running: that change was charged at its time, and if
// it fails, the budget is left as if it had never been asked for. A registry
// driven on explicit time ([Registry.ApplyAt]) should pass the same time here. An invalid cfg is
// refused with an error wrapping [ErrInvalidConfig], and nothing changes.
func (r *Registry) SetConfigAt(now time.Time, cfg Config) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens, r.tokensAt = r.cfg.carry(cfg, now, r.tokens, r.tokensAt)
	if r.held.ok {
		// A change applying took a token: carry the budget it would find
		// refunded too, which the caps of the two Configs may make other
		// than one token more.
		r.held.tokens, r.held.at = r.cfg.carry(cfg, now, r.held.tokens, r.held.at)
	}
	r.cfg = cfg
	r.cfg.AllowedHosts = slices.Clone(cfg.AllowedHosts)
	return nil
}

// validate reports the first field of c out of range, as an error wrapping
// [ErrInvalidConfig].
func (c Config) validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("control: "+format+": %w", append(args, ErrInvalidConfig)...)
	}
	switch {
	case c.AuditSize < 0:
		return bad("AuditSize %d < 0", c.AuditSize)
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return bad("Rate %v is not a finite number >= 0", c.Rate)
	case c.Burst < 0:
		return bad("Burst %d < 0", c.Burst)
	case c.Burst > 0 && c.Rate == 0:
		return bad("Burst %d without a Rate", c.Burst)
	}
	for _, h := range c.AllowedHosts {
		// A wildcard, a port or brackets would never match: Host is compared
		// whole, without them. "*" read as "any Host" refused every request.
		if strings.Contains(h, "*") {
			return bad("AllowedHosts entry %q is a wildcard, which matches no Host (leave AllowedHosts empty to answer any)", h)
		}
		if h == "" || net.ParseIP(h) == nil && strings.ContainsAny(h, ":[]/ \t") {
			return bad("AllowedHosts entry %q is not a host name or IP address without port", h)
		}
	}
	return nil
}

// AllowsHost reports whether the HTTP handler answers a request with this
// Host header, for a server that guards the other paths of its listener
// (metrics, profiles) with the same names.
func (c Config) AllowsHost(host string) bool {
	if len(c.AllowedHosts) == 0 {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	for _, h := range c.AllowedHosts {
		if sameHost(h, host) {
			return true
		}
	}
	return false
}

// sameHost reports whether the AllowedHosts entry h names host (without
// port or brackets): IP addresses as addresses, an IPv4-mapped IPv6 one as
// its IPv4 address and any spelling of an IPv6 one alike (compared as
// strings, [::ffff:127.0.0.2] was not 127.0.0.2); names case-insensitively.
func sameHost(h, host string) bool {
	if a, err := netip.ParseAddr(h); err == nil {
		b, err := netip.ParseAddr(host)
		return err == nil && a.Unmap() == b.Unmap()
	}
	return strings.EqualFold(h, host)
}

func (c Config) auditSize() int {
	if c.AuditSize == 0 {
		return DefaultAuditSize
	}
	return c.AuditSize
}

func (c Config) burst() float64 {
	if c.Burst == 0 {
		return 1
	}
	return float64(c.Burst)
}
