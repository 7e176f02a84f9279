package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A retry whose host SetRoutes dropped while the first attempt ran sends
// nothing (the request fails with its first host's error): Stats.Retries,
// the requests retried on the next host, must not count it.
func TestRetryOnDroppedHostNotCounted(t *testing.T) {
	r := newRetryRig(t)
	// A takes the command, the control plane drops B meanwhile, and A's
	// connection breaks: the retry host is gone, nothing is retried.
	served := r.breakAfterRead(func() error { return r.c.SetRoutes(r.routes(r.hostA)) })
	_, err := r.c.Get(context.Background(), r.key)
	require.Error(t, err)
	require.NoError(t, <-served)

	st := r.c.Stats()
	require.NotContains(t, st.Hosts, r.hostB)
	require.Zero(t, st.Retries, "a retry that sent nothing was counted: %+v", st)
	require.EqualValues(t, 1, st.Failures, "%+v", st)
	require.EqualValues(t, 1, st.Gateway, "%+v", st)
}
