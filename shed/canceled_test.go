package shed_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tierkit/tierkit/shed"
)

// TestAcquireEndedContext pins what Acquire's doc and Stats.Canceled say
// of a request whose context ended before the call: with free capacity and
// nothing queued the fast path admits it; when it would queue it is refused
// with ctx.Err(), not queued, and counted in Canceled (totals and bucket),
// so that every call is counted once as admitted, shed or canceled.
func TestAcquireEndedContext(t *testing.T) {
	s := newShedder(t, shed.Config{Capacity: shed.Fixed(1)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	release, err := s.Acquire(ctx, "A", 0, 1)
	require.NoError(t, err, "the fast path admits without reading ctx")
	st := s.Stats()
	assert.Equal(t, int64(1), st.Admitted)
	assert.Zero(t, st.Canceled)

	_, err = s.Acquire(ctx, "B", 0, 1) // would queue behind A
	require.ErrorIs(t, err, context.Canceled)
	st = s.Stats()
	assert.Equal(t, int64(1), st.Canceled)
	assert.Zero(t, st.Queued)
	assert.Equal(t, int64(1), st.Admitted)
	b := s.Tenant("B")
	require.NotEmpty(t, b)
	assert.Equal(t, int64(1), b[0].Canceled)
	assert.Zero(t, b[0].Admitted)
	release()
	assert.Zero(t, s.Stats().InFlight)
}

// TestAcquireEndedContextFullBucket: a request whose context had already
// ended is counted canceled, not shed, also when its bucket is full (it would
// not have queued but been shed with ReasonBucketFull): the ended context is
// checked first, and a caller that gave up marks no tenant over its share.
// BucketStats.Canceled said such a request "would have queued".
//
// The queued request's deadline is an hour: with the default 100 ms, a stall
// of the test (a loaded machine, -race) let the sweep shed it before it was
// seen queued, or before the bucket-full refusal and the release.
func TestAcquireEndedContextFullBucket(t *testing.T) {
	s := newShedder(t, shed.Config{Capacity: shed.Fixed(1), MaxQueue: 1,
		QueueDeadline: time.Hour, StandingDeadline: time.Hour})
	release, err := s.Acquire(context.Background(), "A", 0, 1)
	require.NoError(t, err)
	queued := make(chan error, 1)
	go func() {
		rel, err := s.Acquire(context.Background(), "A", 0, 1)
		if err == nil {
			rel()
		}
		queued <- err
	}()
	require.Eventually(t, func() bool { return s.Stats().Queued == 1 }, 10*time.Second, time.Millisecond)

	ended, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Acquire(ended, "A", 0, 1) // A's bucket is full
	require.ErrorIs(t, err, context.Canceled)
	st := s.Stats()
	assert.Equal(t, int64(1), st.Canceled)
	assert.Zero(t, st.ShedBucketFull)

	_, err = s.Acquire(context.Background(), "A", 0, 1) // the same, with a live context
	require.ErrorIs(t, err, shed.ErrShed)
	assert.Equal(t, int64(1), s.Stats().ShedBucketFull, "the bucket was full")

	release()
	require.NoError(t, <-queued)
}
