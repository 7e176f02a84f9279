package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBadListenAddressExitsWithUsageStatus: a listen address that is not
// host:port (-addr 6380, meant as :6380; -http with a port no
// listener takes), or the same address for RESP and HTTP, is a bad
// setting: exit status 2, with the error naming the setting. Such
// addresses were left to net.Listen at start, and the process exited 1,
// the status of a gateway that failed while serving, with "listen tcp:
// address 6380: missing port in address", or, for -addr set to the HTTP
// address, "bind: address already in use", which named neither setting
// and read as another process holding the port. The test runs main in a
// child process (this test binary).
func TestBadListenAddressExitsWithUsageStatus(t *testing.T) {
	if asMain(t) {
		return
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-addr", "6380"}, "addr (-addr)"},
		{[]string{"-http", "6381"}, "http_addr (-http)"},
		{[]string{"-http", "127.0.0.1:http-alt-nope"}, "http_addr (-http)"},
		{[]string{"-addr", "127.0.0.1:70000"}, "addr (-addr)"},
		{[]string{"-addr", "127.0.0.1:16381", "-http", "127.0.0.1:16381"}, "addr and http_addr"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			require.Contains(t, mainUsageError(t, tc.args), tc.want, "the error names the setting")
		})
	}
}

// TestListenAddressesChecked: withDefaults refuses the addresses above and
// takes those net.Listen takes: port 0 or none (a free port), for both
// listeners at once too, and "-" for no HTTP listener.
func TestListenAddressesChecked(t *testing.T) {
	for _, c := range []Config{
		{Addr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"},
		{Addr: "127.0.0.1:", HTTPAddr: "-"},
		{Addr: "[::1]:6380", HTTPAddr: "localhost:6381"},
		{Addr: ":6380", HTTPAddr: "127.0.0.1:6381"},
		{},
	} {
		_, err := c.withDefaults()
		require.NoError(t, err, "%+v", c)
	}
	for _, c := range []Config{
		{Addr: "6380"},
		{HTTPAddr: "localhost"},
		{Addr: "127.0.0.1:6381"}, // the default HTTP address
	} {
		_, err := c.withDefaults()
		require.ErrorContains(t, err, "addr", "%+v", c)
	}
}
