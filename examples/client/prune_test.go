package client_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A request in flight when SetRoutes drops its hosts must not open a pool for
// a dropped host on its retry: nothing would ever close that pool (only a
// later publication prunes), so the client would keep connections to a host
// the control plane removed.
func TestRetryOpensNoPoolForDroppedHost(t *testing.T) {
	r := newRetryRig(t)
	// A takes the command, the control plane drops A and B meanwhile, and A's
	// connection breaks: the request retries on B, which is gone.
	served := r.breakAfterRead(func() error { return r.c.SetRoutes(r.routes("127.0.0.1:9")) })
	_, err := r.c.Get(context.Background(), r.key)
	require.Error(t, err)
	require.NoError(t, <-served)

	st := r.c.Stats()
	require.NotContains(t, st.Hosts, r.hostB, "a pool was opened for a host no longer in the routes")
	require.NotContains(t, st.Hosts, r.hostA)
}
