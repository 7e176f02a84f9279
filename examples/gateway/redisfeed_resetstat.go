package main

import (
	"strconv"
	"strings"
)

// statsZeroed reports whether the shard's command counts were zeroed (CONFIG
// RESETSTAT) since the last check, from the INFO commandstats reply of this
// one, and records its INFO count. The flushSignature alone misses it when
// the same commands ran after the RESETSTAT, in the same time, as before it
// (one FLUSHALL of an empty database takes 13-20 us): the lines are then the
// same, and the flush was not seen. Every check runs an INFO, so the count
// of INFO calls rises from one check to the next, unless the counts were
// zeroed in between (and other clients ran fewer INFOs after it than had run
// before).
func (m *markerState) statsZeroed(info string) bool {
	prev, checked := m.infoCalls, m.checked
	m.infoCalls, m.checked = infoCalls(info), true
	return checked && m.infoCalls <= prev
}

// infoCalls returns the calls of INFO in an INFO commandstats reply (0: none
// counted, as right after the counts were zeroed).
func infoCalls(info string) int64 {
	for line := range strings.Lines(info) {
		if fields, ok := strings.CutPrefix(line, "cmdstat_info:calls="); ok {
			n, _ := strconv.ParseInt(fields[:strings.IndexAny(fields+",", ",\r\n")], 10, 64)
			return n
		}
	}
	return 0
}
