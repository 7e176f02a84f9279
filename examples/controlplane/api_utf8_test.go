package controlplane_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
)

// Through the Go API (not the JSON body POST /api/gateways reads), an ID or
// address that is not UTF-8, and a region name that is not, were accepted:
// the routes document (JSON) carries each bad byte as U+FFFD, so followers
// dialled an address never given ("127.0.0.1\xff:7109"), and two gateways
// "eu-9\xfe" and "eu-9\xff" were one ID to them. They are refused now, as
// newFlags refuses a rollout rule that is not UTF-8. Found by a review.
func TestGoAPINotUTF8Refused(t *testing.T) {
	p, _ := twoRegions(t, 1.5)
	_, v := p.Routes()
	for _, g := range []controlplane.Gateway{
		{ID: "eu-9\xfe", Region: "eu", RESP: "127.0.0.1:7109", HTTP: "127.0.0.1:7209", Cores: 1},
		{ID: "eu-8", Region: "eu", RESP: "127.0.0.1\xff:7108", HTTP: "127.0.0.1:7208", Cores: 1},
		{ID: "eu-7", Region: "eu", RESP: "127.0.0.1:7107", HTTP: "h\xc3:7207", Cores: 1},
	} {
		err := p.AddGateway(g)
		var ge *controlplane.GatewayError
		assert.True(t, errors.As(err, &ge), "AddGateway(%q, %q, %q): %v", g.ID, g.RESP, g.HTTP, err)
	}
	_, v2 := p.Routes()
	assert.Equal(t, v, v2, "a refused gateway published nothing")
	routes, _ := p.Routes()
	doc, err := json.Marshal(routes)
	require.NoError(t, err)
	assert.NotContains(t, string(doc), `\ufffd`)

	_, err = controlplane.New(controlplane.Config{
		Regions: []controlplane.Region{{Name: "eu\xff"}},
		Direct:  []string{"127.0.0.1:9000"},
		Cadence: time.Second,
	})
	assert.ErrorIs(t, err, controlplane.ErrInvalidConfig, "a region name that is not UTF-8")
}
