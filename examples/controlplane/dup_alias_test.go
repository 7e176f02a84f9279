package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// The duplicate check compared addresses as strings, so one gateway process
// listed again under another spelling of its address (a port with a leading
// zero, a host name in other case, another form of the same IP) was taken
// for a second gateway: two ring nodes for one process, polled twice, one
// process's state read as two and its death seen as neither's alone. Each
// spelling below is the address of eu-1 and is refused as a duplicate.
func TestDuplicateAddressSpellingsRefused(t *testing.T) {
	eu := []controlplane.Region{{Name: "eu"}}
	a := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "gw.example:6380", HTTP: "[::1]:6381", Cores: 1}
	p, err := controlplane.New(controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{a}})
	require.NoError(t, err)
	for _, b := range []controlplane.Gateway{
		{ID: "eu-2", Region: "eu", RESP: "gw.example:06380", HTTP: "127.0.0.1:7381", Cores: 1},
		{ID: "eu-2", Region: "eu", RESP: "GW.Example:6380", HTTP: "127.0.0.1:7381", Cores: 1},
		{ID: "eu-2", Region: "eu", RESP: "127.0.0.1:7380", HTTP: "[0:0:0:0:0:0:0:1]:6381", Cores: 1},
		{ID: "eu-2", Region: "eu", RESP: "127.0.0.1:7380", HTTP: "[::1]:006381", Cores: 1},
	} {
		require.ErrorIs(t, p.AddGateway(b), controlplane.ErrDuplicateGateway, "%+v", b)
	}
	_, err = controlplane.New(controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{a,
		{ID: "eu-2", Region: "eu", RESP: "gw.example:06380", HTTP: "127.0.0.1:7381", Cores: 1}}})
	require.ErrorIs(t, err, controlplane.ErrDuplicateGateway)

	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, postJSON("/api/gateways",
		`{"id":"eu-2","region":"eu","resp":"127.0.0.1:7380","http":"[0::1]:6381","cores":1}`))
	assert.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	assert.Len(t, p.Gateways(), 1)

	// Other addresses are still other gateways.
	require.NoError(t, p.AddGateway(controlplane.Gateway{ID: "eu-2", Region: "eu", RESP: "gw.example:6390", HTTP: "[::1]:6391", Cores: 1}))
}
