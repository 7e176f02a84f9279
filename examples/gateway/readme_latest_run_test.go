package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMELatestRunNamed: the paragraph before "Against twemproxy"'s
// table says which session's runs follow it, and named the fifty-fourth's
// after the "Latest run" below it had become the fifty-eighth's (the runs
// after the table run from the fiftieth session's to the fifty-eighth's,
// newest first). It must name the session of the "Latest run" heading.
func TestREADMELatestRunNamed(t *testing.T) {
	sec := againstTwemproxy(t)
	heading := regexp.MustCompile(`### Latest run \(([a-z-]+) session\)`).FindStringSubmatch(sec)
	require.NotNil(t, heading, "no \"Latest run (... session)\" heading")
	said := regexp.MustCompile(`the latest, the ([a-z-]+) session's`).FindStringSubmatch(sec)
	require.NotNil(t, said, "the paragraph before the table names no latest run")
	assert.Equal(t, heading[1], said[1], "the session the paragraph before the table calls the latest")
}
