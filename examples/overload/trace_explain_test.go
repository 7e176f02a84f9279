package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplainPeriodsBeforeRejections: the summary's row of the periods just
// before the rejections holds the periods without a normal rejection whose
// next period had one, and no period with a rejection. It took the period
// before every period with a rejection, so in a run of them it counted the
// rejections themselves as what came before, and a period before two
// separate runs was not told apart from one inside a run.
func TestExplainPeriodsBeforeRejections(t *testing.T) {
	tests := []struct {
		name  string
		give  string // one period a character: x had a normal rejection, . none
		want  []int  // the periods just before the rejections
		wantN int    // periods with a rejection
	}{
		{name: "none", give: "....", want: nil, wantN: 0},
		{name: "first period only", give: "x...", want: nil, wantN: 1},
		{name: "one isolated", give: "..x.", want: []int{1}, wantN: 1},
		{name: "a run of three", give: ".xxx.", want: []int{0}, wantN: 3},
		{name: "two runs", give: "..xx.x.xx", want: []int{1, 4, 6}, wantN: 5},
		{name: "a run from the start", give: "xx.x", want: []int{2}, wantN: 3},
		{name: "all", give: "xxxx", want: nil, wantN: 4},
	}
	gcRow := regexp.MustCompile(`(?m)^\s+(\S.*?)\s+load median.*GC cycles (\d+) `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := syntheticTrace(tt.give)
			var b stringsBuilder
			explain(&b, ps)
			out := b.String()
			assert.Contains(t, out, "periods with a normal rejection: "+strconv.Itoa(tt.wantN)+" of "+strconv.Itoa(len(ps)))
			// Period i ran 1<<i GC cycles: a row's sum names its periods.
			rows := map[string]uint64{}
			for _, m := range gcRow.FindAllStringSubmatch(out, -1) {
				n, err := strconv.ParseUint(m[2], 10, 64)
				require.NoError(t, err)
				rows[m[1]] = n
			}
			var want uint64
			for _, i := range tt.want {
				want |= 1 << i
			}
			before, ok := rowEnding(rows, "just before them")
			assert.Equal(t, len(tt.want) > 0, ok, "the row is printed when such periods exist\n%s", out)
			assert.Equal(t, want, before, "periods just before the rejections (bit i: period i)\n%s", out)
		})
	}
}

// syntheticTrace makes one period per character of s: 'x' with a normal
// rejection (one client timeout), any other without; period i ran 1<<i GC
// cycles.
func syntheticTrace(s string) []period {
	ps := make([]period, len(s))
	for i, c := range s {
		ps[i] = period{load: 0.9, limit: 10, gcCycles: 1 << i, others: -1, steal: -1}
		if c == 'x' {
			ps[i].normalShed[0] = 1
		}
	}
	return ps
}

// rowEnding returns the value of the row whose name ends in suffix.
func rowEnding(rows map[string]uint64, suffix string) (uint64, bool) {
	for name, v := range rows {
		if strings.HasSuffix(name, suffix) {
			return v, true
		}
	}
	return 0, false
}
