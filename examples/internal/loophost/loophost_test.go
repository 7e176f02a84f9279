package loophost

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The listener's own IP joins the loopback names on a loopback listener with
// no list (once); a list, "*" included, still replaces them, and a listener
// beyond loopback still answers any Host.
func TestAllowedOwnIP(t *testing.T) {
	for _, tc := range []struct {
		ip    string
		hosts []string
		want  []string
	}{
		{"127.0.0.2", nil, []string{"localhost", "127.0.0.1", "::1", "127.0.0.2"}},
		{"127.0.0.1", nil, []string{"localhost", "127.0.0.1", "::1"}},
		{"::1", nil, []string{"localhost", "127.0.0.1", "::1"}},
		{"::ffff:127.0.0.2", nil, []string{"localhost", "127.0.0.1", "::1", "127.0.0.2"}},
		{"127.0.0.2", []string{"plane.internal"}, []string{"plane.internal"}},
		{"127.0.0.2", []string{"*"}, nil},
		{"192.0.2.1", []string{"plane.internal"}, []string{"plane.internal"}},
		{"192.0.2.1", nil, nil},
		{"", nil, nil}, // no listener
	} {
		got := Allowed(net.ParseIP(tc.ip), tc.hosts)
		assert.Equal(t, tc.want, got, "%s %v", tc.ip, tc.hosts)
	}
}

// Names without an address is the loopback names alone.
func TestNamesNilIP(t *testing.T) {
	assert.Equal(t, []string{"localhost", "127.0.0.1", "::1"}, Names(nil))
}
