package hashring_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/hashring"
)

// TestNodeErrorNamesThePackageOnce checks that a *NodeError's text says
// "hashring: " once, at the front, not again before its sentinel's words
// (it read `hashring: new "a": hashring: duplicate node`), and that the
// sentinel is still matched through it.
func TestNodeErrorNamesThePackageOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []hashring.Node
		want  string
		is    error
	}{
		{"duplicate", []hashring.Node{{ID: "a", Weight: 1}, {ID: "a", Weight: 1}}, `hashring: new "a": duplicate node`, hashring.ErrDuplicateNode},
		{"empty id", []hashring.Node{{ID: "", Weight: 1}}, `hashring: new "": node ID must not be empty`, hashring.ErrBadID},
		{"bad weight", []hashring.Node{{ID: "b", Weight: -1}}, `hashring: new "b": weight -1: weight must be finite and > 0`, hashring.ErrBadWeight},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := hashring.New(hashring.Config{}, tc.nodes)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.True(t, errors.Is(err, tc.is))
		})
	}
	assert.Equal(t, `hashring: add "x": <nil>`, (&hashring.NodeError{Op: "add", ID: "x"}).Error())
}
