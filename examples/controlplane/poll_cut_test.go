package controlplane_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// A gateway whose connection ends before the body its Content-Length (or its
// chunked encoding) announced has failed at the transport: the body reader says
// io.ErrUnexpectedEOF, which the poller took for truncated JSON from a live
// gateway (ErrBadState), so the host was shown bad-state, its down count reset
// and it was never drained.
func TestCutMidBodyIsNotBadState(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			if chunked {
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n{\"knobs\": [\r\n")
			} else {
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"knobs\": [")
			}
			_ = buf.Flush() // then the connection closes: the process died mid-answer
		}))
		g := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:1", HTTP: strings.TrimPrefix(srv.URL, "http://"), Cores: 1}
		_, err := (&controlplane.HTTPPoller{}).Poll(context.Background(), g)
		require.Error(t, err)
		require.NotErrorIs(t, err, controlplane.ErrBadState, "chunked %v: %v", chunked, err)

		p, err := controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Gateways: []controlplane.Gateway{g},
			Cadence: 100 * time.Millisecond, DrainAfter: 2})
		require.NoError(t, err)
		for k := 1; k <= 3; k++ {
			require.NoError(t, p.Tick(context.Background(), t0.Add(time.Duration(k)*time.Second)))
		}
		h := p.State().Hosts[0]
		require.Equal(t, controlplane.HealthDown, h.Health, "chunked %v: %q", chunked, h.Error)
		require.True(t, h.Draining, "chunked %v: cut off for 3 polls with DrainAfter 2", chunked)
		srv.Close()
	}
}
