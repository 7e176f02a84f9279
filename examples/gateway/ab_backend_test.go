package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestABRefusesUnknownBackend: ab.sh ran any backend other than redis on
// memkv (Redis, a typo), its table reading like a Redis run's. It must stop
// before starting anything.
func TestABRefusesUnknownBackend(t *testing.T) {
	out := scriptRefuses(t, nil, "ab.sh", "Redis", "100", "2", "1", "false")
	assert.Contains(t, out, "memkv or redis")
}
