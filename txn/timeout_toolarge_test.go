package txn_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/memkv"
	"github.com/tierkit/tierkit/txn"
)

// tooLargeError is an engine's "request over my limit, applied nothing"
// answer.
type tooLargeError struct{}

func (tooLargeError) Error() string  { return "request too large" }
func (tooLargeError) TooLarge() bool { return true }

// TestCommitTimeoutWrappingTooLargeIsUnknown: a timeout that keeps its last
// attempt's "too large" answer (the engine's limit lowered between the
// attempts) was ErrTooLarge, which says nothing was applied and the
// transaction is to be split, and a Manager counted it failed and too
// large; the first attempt may have been applied. As for a Temporary,
// too-old or conflict answer, only one outside every timeout decides.
func TestCommitTimeoutWrappingTooLargeIsUnknown(t *testing.T) {
	for name, lost := range map[string]error{
		"timeout wrapping too large": gaveUpError{last: tooLargeError{}},
		"wrapped once more":          fmt.Errorf("commit: %w", gaveUpError{last: fmt.Errorf("attempt 3: %w", tooLargeError{})}),
	} {
		t.Run(name, func(t *testing.T) {
			requireAppliedOnceUnknown(t, lost)
			assert.NotErrorIs(t, classifyOnce(t, lost), txn.ErrTooLarge)

			m, err := txn.NewManager(lateReplyEngine{Store: newStore(t, memkv.Config{}), err: lost}, txn.ManagerConfig{})
			require.NoError(t, err)
			id, err := m.Begin(txn.Options{})
			require.NoError(t, err)
			require.NoError(t, m.Put(id, b("k"), b("v")))
			_, err = m.Commit(ctx, id)
			require.ErrorIs(t, err, txn.ErrCommitUnknown)
			assert.Equal(t, txn.ManagerStats{Begun: 1, Unknown: 1}, m.Stats())
		})
	}

	// Outside the timeout, the engine's own answer still decides.
	err := classifyOnce(t, tooLargeWrapping{gaveUpError{last: busyError{}}})
	assert.ErrorIs(t, err, txn.ErrTooLarge)
	assert.NotErrorIs(t, err, txn.ErrCommitUnknown)
}

// tooLargeWrapping is an engine's too-large answer wrapping the wait's error.
type tooLargeWrapping struct{ err error }

func (e tooLargeWrapping) Error() string  { return "too large: " + e.err.Error() }
func (e tooLargeWrapping) Unwrap() error  { return e.err }
func (e tooLargeWrapping) TooLarge() bool { return true }
