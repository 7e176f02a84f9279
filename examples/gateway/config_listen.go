package main

import (
	"fmt"
	"net"
	"strings"
)

// checkListen refuses a listen address (addr, http_addr unless "-") that is
// not host:port with a port a listener takes (a number to 65535, a service
// name the system knows, or none or 0 for a free one), and one address for
// both: left to net.Listen at start, they failed it with an error that named
// no setting ("bind: address already in use" for -addr set to the HTTP
// address), and the process exited 1, not a bad setting's 2.
func (c Config) checkListen() error {
	for _, a := range []struct {
		name, addr string
		off        bool // no listener
	}{{"addr (-addr)", c.Addr, false}, {"http_addr (-http)", c.HTTPAddr, c.HTTPAddr == "-"}} {
		if a.off {
			continue
		}
		if _, port, err := net.SplitHostPort(a.addr); err != nil {
			return fmt.Errorf("gateway: %s %q: want host:port: %w", a.name, a.addr, err)
		} else if _, err := net.LookupPort("tcp", port); err != nil {
			return fmt.Errorf("gateway: %s %q: %w", a.name, a.addr, err)
		}
	}
	if c.HTTPAddr != "-" && oneAddress(c.Addr, c.HTTPAddr) {
		return fmt.Errorf("gateway: addr and http_addr (-addr, -http) are one address, %q and %q: give each its own", c.Addr, c.HTTPAddr)
	}
	return nil
}

// oneAddress reports whether listeners on a and b (host:port, checked) would
// take one port: the same port, not 0 (a free one), on the same host or with
// either on every address (":6381" takes 127.0.0.1:6381 too). Two names of
// one host ("localhost", "127.0.0.1") are not resolved: the listen's error
// names the address then.
func oneAddress(a, b string) bool {
	ha, pa, _ := net.SplitHostPort(a)
	hb, pb, _ := net.SplitHostPort(b)
	na, _ := net.LookupPort("tcp", pa)
	nb, _ := net.LookupPort("tcp", pb)
	if na == 0 || na != nb {
		return false
	}
	ia, ib := net.ParseIP(ha), net.ParseIP(hb)
	anyHost := func(h string, ip net.IP) bool { return h == "" || ip != nil && ip.IsUnspecified() }
	return strings.EqualFold(ha, hb) || ia != nil && ia.Equal(ib) || anyHost(ha, ia) || anyHost(hb, ib)
}
