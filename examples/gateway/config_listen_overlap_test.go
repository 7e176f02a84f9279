package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestListenAddressesOverlapRefused: addr and http_addr that bind one port
// on overlapping addresses are "one address for both" (README) as much as
// the same text is: "-addr :6381", all interfaces, takes the default HTTP
// address 127.0.0.1:6381 too, and the start failed the HTTP listen with
// "bind: address already in use", an error naming no setting, exit 1.
// Only the same text was refused.
func TestListenAddressesOverlapRefused(t *testing.T) {
	for _, c := range []Config{
		{Addr: ":6381"},
		{Addr: "0.0.0.0:6381"},
		{Addr: "[::]:6381"},
		{Addr: "127.0.0.1:16380", HTTPAddr: ":16380"},
		{Addr: "LOCALHOST:16380", HTTPAddr: "localhost:16380"},
		{Addr: "127.0.0.1:16380", HTTPAddr: "127.0.0.1:016380"},
	} {
		_, err := c.withDefaults()
		require.ErrorContains(t, err, "addr and http_addr", "%+v", c)
	}
	for _, c := range []Config{
		{Addr: ":6380"},
		{Addr: ":0", HTTPAddr: ":0"},
		{Addr: "127.0.0.1:16380", HTTPAddr: "127.0.0.2:16380"},
		{Addr: ":16380", HTTPAddr: "-"},
	} {
		_, err := c.withDefaults()
		require.NoError(t, err, "%+v", c)
	}
}
