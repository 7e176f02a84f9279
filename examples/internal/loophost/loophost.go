package loophost

import (
	"net"
	"slices"
)

// Names returns the loopback names localhost, 127.0.0.1 and ::1 and, when
// it is not one of them, ip itself (127.0.0.2, say: the listener's own URL).
// A nil ip adds nothing.
func Names(ip net.IP) []string {
	loop := []string{"localhost", "127.0.0.1", "::1"}
	if ip != nil && !slices.Contains(loop, ip.String()) {
		loop = append(loop, ip.String())
	}
	return loop
}

// Allowed returns the Host names a listener on ip answers to (nil: any):
// hosts when given, nil for ["*"], and with none, Names(ip) for a loopback
// ip and nil (any Host) otherwise.
func Allowed(ip net.IP, hosts []string) []string {
	switch {
	case len(hosts) == 1 && hosts[0] == "*":
		return nil
	case len(hosts) > 0:
		return hosts
	case ip.IsLoopback():
		return Names(ip)
	}
	return nil
}
