package controlplane_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// eofBody is a response body that records whether it was read to its end
// before Close: net/http's transport reuses a connection only then.
type eofBody struct {
	r          io.Reader
	eof, early bool
}

func (b *eofBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *eofBody) Close() error {
	b.early = !b.eof
	return nil
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The poller closed the answer unread past its JSON value: json.Decoder stops
// there, before the newline package control writes after it and before the
// body's EOF, so the transport closed the connection instead of reusing it,
// and every poll of a gateway whose state spans a few reads opened a new
// connection (and left one in TIME_WAIT).
func TestPollReadsAnswerToEOF(t *testing.T) {
	var bodies []*eofBody
	c := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		b := &eofBody{r: strings.NewReader(`{"knobs": [], "state": {"host": {"cpu_seconds": 1, "uptime_seconds": 2}}}` + "\n")}
		bodies = append(bodies, b)
		return &http.Response{StatusCode: http.StatusOK, Body: b, Header: http.Header{}, Request: r}, nil
	})}
	g := controlplane.Gateway{ID: "g", HTTP: "gw:8080"}
	s, err := (&controlplane.HTTPPoller{Client: c}).Poll(context.Background(), g)
	require.NoError(t, err)
	require.Equal(t, 2.0, s.UptimeSeconds)
	require.Len(t, bodies, 1)
	require.False(t, bodies[0].early, "the body was closed before its EOF: the connection is not reused")
}
