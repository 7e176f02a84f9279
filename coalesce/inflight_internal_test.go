package coalesce

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInFlightAfterResultWins: a caller whose ctx ends as the result arrives
// finds the call sealed and returns fn's result; a Stats call made on its return
// must not count the execution in flight, since fn has returned. finish is held
// right after it sealed the call and released the lock, before it wakes anyone.
func TestInFlightAfterResultWins(t *testing.T) {
	sealedAt := make(chan struct{})
	resume := make(chan struct{})
	testHookSealed = func() {
		close(sealedAt)
		<-resume
	}
	defer func() { testHookSealed = nil }()

	var g Group[string, int]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	type out struct {
		v        int
		err      error
		inFlight uint64
	}
	got := make(chan out, 1)
	go func() {
		v, err := g.Do(ctx, "k", func(context.Context) (int, error) {
			<-release
			return 7, nil
		})
		got <- out{v, err, g.Stats().InFlight}
	}()
	close(release)
	<-sealedAt // fn returned, the call is sealed, its done channel still open
	cancel()   // the caller leaves through ctx, finds the call sealed: the result wins
	r := <-got
	close(resume)
	require.NoError(t, r.err)
	assert.Equal(t, 7, r.v)
	assert.Zero(t, r.inFlight, "fn has returned and its caller holds the result")
	assert.Zero(t, g.Stats().InFlight)
}

// TestInFlightAfterAbandon pins what Stats.InFlight documents: when every caller
// of an execution left through its ctx, they have all returned, yet the
// execution counts in flight until its fn returns.
func TestInFlightAfterAbandon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group[string, int]
		ctx, cancel := context.WithCancel(context.Background())
		release := make(chan struct{})
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			_, err := g.Do(ctx, "k", func(context.Context) (int, error) {
				<-release // ignores its context, as a slow backend call may
				return 1, nil
			})
			assert.ErrorIs(t, err, context.Canceled)
		}()
		synctest.Wait()
		cancel()
		<-returned // every caller has returned
		st := g.Stats()
		assert.EqualValues(t, 1, st.Abandoned)
		assert.EqualValues(t, 1, st.InFlight, "fn of the abandoned execution still runs")
		close(release)
		synctest.Wait()
		assert.Zero(t, g.Stats().InFlight)
	})
}
