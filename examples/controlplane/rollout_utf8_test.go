package controlplane_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/examples/controlplane"
	"github.com/tierkit/tierkit/rollout"
)

// The routes document is JSON, which replaces every byte of a string that is not
// UTF-8 with U+FFFD. A rollout rule on a binary key prefix or with a binary salt
// was accepted and published mangled: a follower then decided otherwise than the
// plane's own routes, and two prefixes that mangle alike made every later
// document undecodable, so followers stopped following (no drain, no membership
// change reached them). The plane rejects such rules up front.
func TestRolloutNotUTF8Rejected(t *testing.T) {
	p, _ := twoRegions(t, 1)
	srv := httptest.NewServer(p.Handler())
	defer srv.Close()
	url := srv.URL + "/api/routes"

	for _, tt := range []struct {
		name string
		cfg  rollout.Config
	}{
		{"prefixes", rollout.Config{Rules: []rollout.Rule{{Service: "s", Prefix: "\xfe", Percent: 100}, {Service: "s", Prefix: "\xff", Percent: 0}}}},
		{"salt", rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 50, Salt: "\x8a\x01"}}}},
		{"service", rollout.Config{Rules: []rollout.Rule{{Service: "s\xff", Percent: 50}}}},
		{"region", rollout.Config{Rules: []rollout.Rule{{Service: "s", Percent: 50, Regions: []string{"eu\xff"}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, v0 := p.Routes()
			err := p.SetRollout(tt.cfg)
			if err == nil { // what a follower got
				want, _ := p.Routes()
				got, _, ferr := controlplane.FetchRoutes(context.Background(), url)
				require.NoError(t, ferr, "a follower cannot decode the published routes")
				r := tt.cfg.Rules[0]
				for i := range 200 {
					q := rollout.Query{Service: r.Service, Key: r.Prefix + strconv.Itoa(i), Region: "eu\xff"}
					require.Equal(t, want.Rollout.Decide(q), got.Rollout.Decide(q), "key %q: the follower decides otherwise", q.Key)
				}
			}
			require.ErrorIs(t, err, rollout.ErrInvalidConfig)
			_, v1 := p.Routes()
			require.Equal(t, v0, v1, "a rejected rollout publishes nothing")
			_, _, err = controlplane.FetchRoutes(context.Background(), url)
			require.NoError(t, err)

			_, err = controlplane.New(controlplane.Config{Regions: []controlplane.Region{{Name: "eu"}}, Rollout: tt.cfg})
			require.ErrorIs(t, err, rollout.ErrInvalidConfig)
		})
	}
}
