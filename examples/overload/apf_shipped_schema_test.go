package main

import (
	"crypto/sha256"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPFShippedRowHashesUnderAShippedFlowSchema: APF deals a flow's hand
// from the SHA-256 of its FlowSchema's name, a zero byte and the flow
// distinguisher, so the hands depend on the schema's name. The row that
// stands for APF as it ships must deal them under a schema name it ships:
// global-default, the suggested FlowSchema that matches authenticated users'
// requests (distinguished by user) and sends them to the global-default
// priority level, 128 queues, hands of 6, queues of 50. It dealt them under
// the empty name, which no FlowSchema can have, and whose hands happened to
// isolate every normal tenant: 0 of 1344 with a timeout over 20 virtual
// seconds, against 1163 under global-default.
func TestAPFShippedRowHashesUnderAShippedFlowSchema(t *testing.T) {
	var shipped *apfPolicy
	for _, p := range policies() {
		if a, ok := p.(*apfPolicy); ok && a.queues == 128 && a.hand == 6 {
			shipped = a
		}
	}
	require.NotNil(t, shipped, "the 128/6 row")
	require.Equal(t, 50, shipped.queueLen)
	s := defaultScenario(0, 1)
	shipped.reset(s, func(*request) {})
	for i := range 20 {
		name := tenantName(i, false)
		sum := sha256.Sum256([]byte("global-default\x00" + name))
		want := apfDeal(binary.LittleEndian.Uint64(sum[:8]), 128, 6)
		assert.Equal(t, want, shipped.dealHand(i, name), "hand of %s", name)
	}
}
