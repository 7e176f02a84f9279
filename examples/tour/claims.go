package main

import (
	"errors"
	"strings"
)

// claim is a fact a section prints as an outcome ("-> 1 backend fetch",
// "none queued"): the section checks it before printing, so a package that
// stops doing what the line says fails the tour instead of being described
// wrongly.
type claim struct {
	holds bool
	what  string // the fact, as the printed line states it
}

// verify returns an error naming every claim that does not hold, or nil.
func verify(cs ...claim) error {
	var failed []string
	for _, c := range cs {
		if !c.holds {
			failed = append(failed, c.what)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return errors.New("claim does not hold: " + strings.Join(failed, "; "))
}
