package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCountLineBoundedAsRedis: a multi-bulk count or bulk length line still
// without its end past 64 KiB from its '*' or '$' is refused as Redis
// refuses it ("too big mbulk count string", "too big bulk count string"),
// the commands before it served, and the connection closed; one of 64 KiB
// is still waited for. The gateway read such a line up to
// max_request_bytes (4 MiB) and held it, a connection that must still
// authenticate too, and closed the stream without a word when it ended.
func TestCountLineBoundedAsRedis(t *testing.T) {
	digits := func(n int) string { return strings.Repeat("1", n) }
	for _, tt := range []struct {
		in   string
		want int // commands read
		err  string
	}{
		{"*" + digits(maxInline-1), 0, ""}, // 64 KiB from the '*'
		{"*" + digits(maxInline), 0, "too big mbulk count string"},
		{"PING\r\n*" + digits(maxInline), 1, "too big mbulk count string"},
		{"*1\r\n$" + digits(maxInline-1), 0, ""},
		{"*1\r\n$" + digits(maxInline), 0, "too big bulk count string"},
		{"*2\r\n$4\r\nECHO\r\n$" + digits(maxInline), 0, "too big bulk count string"},
	} {
		for _, chunk := range []int{1000, 1 << 20} {
			rr := newRESPReader(&chunkReader{data: []byte(tt.in), n: chunk}, 1<<20)
			got, err := readAll(rr.ReadCommands)
			assert.Len(t, got, tt.want, "%q in chunks of %d", cut(tt.in, 20), chunk)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err, "%q in chunks of %d", cut(tt.in, 20), chunk)
			} else {
				assert.NotContains(t, err.Error(), "too big", "%q in chunks of %d", cut(tt.in, 20), chunk)
			}
		}
	}

	rs := startRedisAs(t, "default", "pw", "--requirepass", "pw")
	gw := startGateway(t, Config{HTTPAddr: "-", Tenants: []TenantConfig{{Name: "default", Password: "pw"}}})
	for _, in := range []string{
		"*" + digits(70000),
		"*1\r\n$" + digits(70000),
		"AUTH pw\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$" + digits(70000),
	} {
		want, got := exchangeAt(t, rs.addr, in), exchangeAt(t, gw.Addr(), in)
		assert.Equal(t, want, got, "%q", cut(in, 40))
	}
}
