package control_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tierkit/tierkit/control"
)

// TestAllowsHostComparesAddresses: an IP address in AllowedHosts or in the
// Host header is compared as an address, not as a string: an IPv4-mapped
// IPv6 address ([::ffff:127.0.0.2], the form a listener may be given, and
// [::ffff:7f00:2], the form a browser writes it in) is its IPv4 address, and
// an IPv6 address spelled out is the same address abbreviated. They were
// refused with 403 forbidden_host: a handler on 127.0.0.2, reached at the
// IPv4-mapped form of its own address, refused it, and an entry written in
// that form refused a Host of 127.0.0.2. Other addresses are still refused.
func TestAllowsHostComparesAddresses(t *testing.T) {
	cfg := control.Config{AllowedHosts: []string{"localhost", "127.0.0.1", "::1", "127.0.0.2", "::ffff:127.0.0.3"}}
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.2:6381", true},
		{"[::ffff:127.0.0.2]:6381", true},
		{"[::ffff:7f00:2]", true},
		{"[::FFFF:127.0.0.1]:80", true},
		{"[0:0:0:0:0:0:0:1]:80", true},
		{"127.0.0.3", true},
		{"[::ffff:127.0.0.3]", true},
		{"127.0.0.4", false},
		{"[::ffff:127.0.0.4]:6381", false},
		{"[::2]", false},
		{"[::ffff:7f00:1].rebind.example", false},
		{"0x7f.0.0.1", false},
	} {
		assert.Equal(t, tc.want, cfg.AllowsHost(tc.host), "Host %q", tc.host)
	}
}
