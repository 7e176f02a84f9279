package main

import (
	"fmt"
	"net"
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
	if _, port, _ := net.SplitHostPort(c.Addr); c.Addr == c.HTTPAddr && port != "" && port != "0" {
		return fmt.Errorf("gateway: addr and http_addr (-addr, -http) are one address, %q: give each its own", c.Addr)
	}
	return nil
}
