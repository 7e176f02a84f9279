package hashring

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLookupBoundedNilLoads: a nil *Loads passed as the LoadReporter counts as no
// load, as a nil LoadReporter does ("It never panics"); a nil pointer inside the
// interface is not a nil interface, and Load and Total dereferenced it.
func TestLookupBoundedNilLoads(t *testing.T) {
	r, err := New(Config{}, []Node{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}})
	require.NoError(t, err)
	var l *Loads
	for _, key := range []string{"x", "y", "z"} {
		want, err := r.LookupBounded(key, 1.25, nil)
		require.NoError(t, err)
		got, err := r.LookupBounded(key, 1.25, l)
		require.NoError(t, err)
		require.Equal(t, want, got, key)
	}
	require.Zero(t, l.Load("a"))
	require.Zero(t, l.Total())
}
