package main

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemkvCountsTransferCommits: the memkv section printed "4 workers x 500
// transfers: 2001 commits", counting the commit that seeded the accounts
// before the run (and in the commits/s of the run's time); a transfer
// commits at most once.
func TestMemkvCountsTransferCommits(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, tourMemkv(&out))
	m := regexp.MustCompile(`(\d+) workers x (\d+) transfers over \d+ accounts: (\d+) commits`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	workers, _ := strconv.Atoi(m[1])
	each, _ := strconv.Atoi(m[2])
	commits, _ := strconv.Atoi(m[3])
	assert.LessOrEqual(t, commits, workers*each, out.String())
}
