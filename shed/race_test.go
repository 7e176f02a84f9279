//go:build race

package shed_test

const raceEnabled = true
