package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUpLineRate: -rate takes any rate from 1 to 1000 requests/s, fractions
// included, but the "cluster up" line printed it rounded to a whole number:
// "-rate 1.5" read "at 2 req/s per region", "-rate 2.5" "at 2". It prints
// the rate given now. Found by a review.
func TestUpLineRate(t *testing.T) {
	c := &Cluster{Spec: DefaultSpec(), Shards: []string{"127.0.0.1:1", "127.0.0.1:2"},
		Tenants: []string{"t00", "t01"}, PlaneURL: "http://127.0.0.1:7070"}
	for _, tt := range []struct {
		rate float64
		want string
	}{{1.5, " at 1.5 req/s "}, {2.5, " at 2.5 req/s "}, {10, " at 10 req/s "}, {1000, " at 1000 req/s "}, {1.25, " at 1.25 req/s "}} {
		c.Spec.Rate = tt.rate
		assert.Contains(t, upLine(c), tt.want)
	}
	c.Spec.Rate = 10
	assert.Equal(t, "cluster up: 2 regions x 3 gateways, 2 redis shards, 2 tenants at 10 req/s per region; dashboard http://127.0.0.1:7070/", upLine(c))
}
