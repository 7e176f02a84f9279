package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestKilledGatewayRetryBudgetLapses: killed-gateway's retry budget is the
// requests in flight on the victim when it died, plus per client the first
// requests that find it dead and one each time the client's ejection of it
// (client.Config.EjectFor, 2 s) lapses before the plane drops it, which the
// scenario allows to take up to 5 s. It was a fixed 2 per client, so a
// plane that dropped the dead host after 4.5 s, within its bound, failed the
// scenario on the retries that the lapses cost: here 3 for eu's one client,
// nothing in flight at the kill (the first at once, one after each lapse),
// within a budget of 2 + 2 lapses.
func TestKilledGatewayRetryBudgetLapses(t *testing.T) {
	at := []time.Duration{100 * time.Millisecond, 2200 * time.Millisecond, 4300 * time.Millisecond}
	killedRetries(t, "eu", 4300*time.Millisecond, at, false)
}

// TestKilledRetryBudget: the budget counts the requests in flight on the
// victim at the kill once each (a client's 32 workers may all be there), the
// first requests per client, and the lapses that the plane's drop, as the
// clients see it a follow period or two later, allows.
func TestKilledRetryBudget(t *testing.T) {
	const follow, eject = 100 * time.Millisecond, 2 * time.Second
	assert.Equal(t, uint64(24), killedRetryBudget(0, 12, 0), "12 clients, nothing in flight, no lapse")
	assert.Equal(t, uint64(32+24), killedRetryBudget(32, 12, 0), "one client's 32 workers in flight at the kill")
	assert.Equal(t, uint64(36), killedRetryBudget(0, 12, 1))
	assert.Equal(t, 0, killedLapses(1070*time.Millisecond, follow, eject), "dropped well within an ejection")
	assert.Equal(t, 1, killedLapses(1850*time.Millisecond, follow, eject), "the clients may see it after the lapse")
	assert.Equal(t, 2, killedLapses(4*time.Second, follow, eject))
	assert.Equal(t, 0, killedLapses(time.Second, follow, 0), "no ejection: nothing lapses")
}
