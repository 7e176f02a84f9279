package controlplane

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHostAllowedComparesAddresses: an IP address in AllowedHosts or in the
// Host header is compared as an address, as control.Config.AllowsHost
// compares it: an IPv4-mapped IPv6 address ([::ffff:127.0.0.2], the form a
// listener may be given, or [::ffff:7f00:2], a browser's) is its IPv4
// address, and an IPv6 address spelled out is the same one abbreviated.
// Compared as strings they were refused with 403: a plane on 127.0.0.2,
// reached at that form of its own address, refused it. Others still are.
func TestHostAllowedComparesAddresses(t *testing.T) {
	hosts := []string{"localhost", "127.0.0.1", "::1", "127.0.0.2", "::ffff:127.0.0.3"}
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.2:7070", true},
		{"[::ffff:127.0.0.2]:7070", true},
		{"[::ffff:7f00:2]", true},
		{"[::FFFF:127.0.0.1]:80", true},
		{"[0:0:0:0:0:0:0:1]:80", true},
		{"127.0.0.3", true},
		{"[::ffff:127.0.0.3]", true},
		{"LocalHost:7070", true},
		{"127.0.0.4", false},
		{"[::ffff:127.0.0.4]:7070", false},
		{"[::2]", false},
		{"0x7f.0.0.1", false},
	} {
		assert.Equal(t, tc.want, hostAllowed(hosts, tc.host), "Host %q", tc.host)
	}
}
