package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// Two gateways given one HTTP address were both polled there: one process's
// state was taken for the other's (its CPU, its tenants), and when the other
// died the plane never noticed, so clients kept being sent to it. A gateway's
// HTTP address must be its own, like its ID and RESP address.
func TestDuplicateHTTPAddressRefused(t *testing.T) {
	eu := []controlplane.Region{{Name: "eu"}}
	a := controlplane.Gateway{ID: "eu-1", Region: "eu", RESP: "127.0.0.1:6380", HTTP: "127.0.0.1:6381", Cores: 1}
	b := controlplane.Gateway{ID: "eu-2", Region: "eu", RESP: "127.0.0.1:6390", HTTP: "127.0.0.1:6381", Cores: 1}
	_, err := controlplane.New(controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{a, b}})
	require.ErrorIs(t, err, controlplane.ErrDuplicateGateway)
	var ge *controlplane.GatewayError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, "eu-2", ge.ID)

	p, err := controlplane.New(controlplane.Config{Regions: eu, Gateways: []controlplane.Gateway{a}})
	require.NoError(t, err)
	require.ErrorIs(t, p.AddGateway(b), controlplane.ErrDuplicateGateway)
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, postJSON("/api/gateways",
		`{"id":"eu-2","region":"eu","resp":"127.0.0.1:6390","http":"127.0.0.1:6381","cores":1}`))
	assert.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	assert.Len(t, p.Gateways(), 1)
}
