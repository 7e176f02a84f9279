package hashring

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name  string
		cur   []int
		quota []float64
		m     int
		want  []int
	}{
		{"fresh equal", []int{0, 0, 0, 0}, []float64{64, 64, 64, 64}, 256, []int{64, 64, 64, 64}},
		{"fresh rounding goes to the most under-served", []int{0, 0, 0}, []float64{85.4, 85.3, 85.3}, 256, []int{86, 85, 85}},
		{"counts inside the band stay", []int{86, 85, 85}, []float64{85.2, 85.5, 85.3}, 256, []int{86, 85, 85}},
		{"leave: orphans fill the band", []int{64, 64, 0}, []float64{128, 128}[:2], 256, nil},
		{"surplus is trimmed from the most over-served", []int{100, 100, 56}, []float64{85.5, 85.4, 85.1}, 256, []int{86, 85, 85}},
	}
	tests[3].cur, tests[3].want = []int{64, 64}, []int{128, 128}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, plan(tt.cur, tt.quota, tt.m))
		})
	}
}
