package client

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	// ErrNotFound is returned by Client.Get for a key that does not exist. It is an
	// answer, not a failure: it is not counted in Stats.Failures.
	ErrNotFound = errors.New("client: key not found")
	// ErrNoRoutes is returned before the first successful Client.SetRoutes. The
	// caller should wait for the control plane's first publication.
	ErrNoRoutes = errors.New("client: no routes published")
	// ErrNoHost means the chosen path has nowhere to go: the serving region has no
	// gateway ring, or direct mode has no shards. The caller should fail the request;
	// the published routes are incomplete.
	ErrNoHost = errors.New("client: no host for the request")
	// ErrClosed is returned after Client.Close.
	ErrClosed = errors.New("client: closed")
	// ErrBadReply is wrapped by the error of a request whose host answered with a
	// reply of the wrong shape for the command: an MGET reply that is not an
	// array (a status, a value, an integer, a null), an array of another length
	// than the keys sent, or one with an element that is neither a value, null
	// nor an error (an integer, a nested array). The host broke the protocol
	// rather than failed: the request is not retried. An error element is not
	// one: MGet returns it as the reply error it is, retried as that reply
	// would be (a LOADING element is, an OVERLOADED one is not).
	ErrBadReply = errors.New("client: reply of the wrong shape")
	// ErrBadTTL is returned by Client.Set for a negative ttl, before anything
	// is sent: go-redis would send -1ns as KEEPTTL and any other negative ttl
	// as no expiry, storing for good a value meant to be expired already.
	ErrBadTTL = errors.New("client: negative ttl")
)

// notReady are the prefixes of the replies of a store that cannot serve the
// request now: Redis's LOADING, TRYAGAIN, MASTERDOWN. Through a gateway they
// are a backend shard's answer, relayed by every gateway in front of it: the
// request is retried, but the host that relayed it is not ejected.
var notReady = []string{"LOADING", "TRYAGAIN", "MASTERDOWN"}

// goingAway are the prefixes of the replies of a host that is shutting down,
// such as the reference gateway's answer to a connection it accepts while
// draining (examples/gateway refuses it with "ERR server is shutting down"):
// retried and ejected, as a host that closed the connection.
var goingAway = []string{"SHUTDOWN", "ERR server is shutting down"}

// retryable reports whether err says the host, not the request, failed, so that
// another host may serve it: a dial refused, a connection reset or closed (a
// killed or draining gateway), a closed pool, or a server reply saying it is not
// ready (notReady, goingAway). Reply errors about the request itself (wrong
// type, ACL, quota, shed) are not retried: another host would say the same, and retrying a shed request
// adds load where there is none to spare. Nor is a wait for a connection of
// this client's own pool that timed out (redis.ErrPoolTimeout), or a pool
// that has reached its connection cap (redis.ErrPoolExhausted; the pool's
// MaxActiveConns is Config.PoolSize): the pool is busy, the host did not
// fail, and ejecting it would move all its keys to the next host, whose pool
// the same burst would then fill. Nothing is retried once ctx is done or its
// deadline has passed.
func retryable(ctx context.Context, err error) bool {
	if err == nil || expired(ctx) || errors.Is(err, redis.Nil) || errors.Is(err, ErrClosed) ||
		errors.Is(err, ErrBadReply) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrPoolExhausted) {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) && !errors.Is(err, redis.ErrClosed) {
		return hasPrefix(re.Error(), notReady) || hasPrefix(re.Error(), goingAway)
	}
	return true
}

// hostFailed reports whether err is retryable and says that the host
// itself failed, so that it is ejected: anything retryable but a notReady
// reply, which the host answered for the data behind it.
func hostFailed(ctx context.Context, err error) bool {
	if !retryable(ctx, err) {
		return false
	}
	var re redis.Error
	return !errors.As(err, &re) || errors.Is(err, redis.ErrClosed) || !hasPrefix(re.Error(), notReady)
}

func hasPrefix(msg string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// expired reports whether ctx is done or its deadline has passed. A read
// bounded by the deadline can fail before the context's own timer has marked
// it done: that failure is the caller's deadline, not the host's.
func expired(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	dl, ok := ctx.Deadline()
	return ok && !time.Now().Before(dl)
}
