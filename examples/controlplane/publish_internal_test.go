package controlplane

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFailedPublicationIsRetried: when encoding the routes fails after the
// rings were updated, the next publication carries them, even if nothing
// changed in between. Before, the rings already matched the gateways, so no
// change was seen and clients kept the old ring for good.
func TestFailedPublicationIsRetried(t *testing.T) {
	gw := func(id, resp string) Gateway {
		return Gateway{ID: id, Region: "eu", RESP: resp, HTTP: strings.Replace(resp, ":7", ":8", 1), Cores: 1}
	}
	p, err := New(Config{
		Regions:  []Region{{Name: "eu"}},
		Gateways: []Gateway{gw("eu-1", "127.0.0.1:7001"), gw("eu-2", "127.0.0.1:7002")},
		Poller:   PollerFunc(nil),
	})
	require.NoError(t, err)
	_, v0 := p.Routes()

	orig := marshalWire
	marshalWire = func(wireRoutes) ([]byte, error) { return nil, errors.New("injected") }
	require.NoError(t, p.AddGateway(gw("eu-3", "127.0.0.1:7003")))
	marshalWire = orig
	r, v := p.Routes()
	require.Equal(t, v0, v, "the failed publication published nothing")
	require.Equal(t, 2, r.Gateways["eu"].Len())
	require.EqualValues(t, 1, p.Stats().RingErrors)

	// The next tick's publication, with nothing changed since.
	p.mu.Lock()
	p.publishLocked()
	p.mu.Unlock()
	r, v = p.Routes()
	require.Greater(t, v, v0)
	require.Equal(t, 3, r.Gateways["eu"].Len(), "the ring with eu-3 is published")
}
