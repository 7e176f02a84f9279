package main

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShedLoadIsMeasured: the shed section printed "at 130% load", a
// constant, while the requests it then counts are drawn at random; the load
// it prints is the offered requests over what the 16 slots of 1 ms drain in
// the 1 s it runs (16,000).
func TestShedLoadIsMeasured(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, shedIsolation(&out))
	text := out.String()
	sent := regexp.MustCompile(`tenants sent (\d+) requests`).FindAllStringSubmatch(text, -1)
	require.Len(t, sent, 2, text)
	offered := 0
	for _, m := range sent {
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		offered += n
	}
	want := fmt.Sprintf("at %.0f%% load", math.Round(100*float64(offered)/16_000))
	assert.Contains(t, text, want)
}
