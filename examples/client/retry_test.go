package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
)

type replyErr string

func (e replyErr) Error() string { return string(e) }
func (replyErr) RedisError()     {}

func TestRetryable(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		give error
		want bool
	}{
		{"nil", context.Background(), nil, false},
		{"not found", context.Background(), redis.Nil, false},
		{"eof", context.Background(), io.EOF, true},
		{"refused", context.Background(), &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"reset", context.Background(), syscall.ECONNRESET, true},
		{"closed pool", context.Background(), redis.ErrClosed, true},
		{"pool timeout", context.Background(), redis.ErrPoolTimeout, false},
		{"bad reply", context.Background(), fmt.Errorf("%w: short", ErrBadReply), false},
		{"loading", context.Background(), replyErr("LOADING dataset"), true},
		{"tryagain", context.Background(), replyErr("TRYAGAIN"), true},
		{"gateway draining", context.Background(), replyErr("ERR server is shutting down"), true},
		{"shed", context.Background(), replyErr("BUSY overloaded"), false},
		{"wrong type", context.Background(), replyErr("WRONGTYPE x"), false},
		{"deadline passed", done, io.EOF, false},
		{"wrapped eof", context.Background(), errors.Join(errors.New("x"), io.EOF), true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, retryable(tt.ctx, tt.give), tt.name)
	}
}

// hostFailed (eject) is retryable minus the not-ready replies a gateway
// relays from the shard behind it.
func TestHostFailed(t *testing.T) {
	bg := context.Background()
	assert.True(t, hostFailed(bg, io.EOF))
	assert.True(t, hostFailed(bg, redis.ErrClosed))
	assert.True(t, hostFailed(bg, replyErr("ERR server is shutting down")))
	assert.False(t, hostFailed(bg, replyErr("LOADING dataset")))
	assert.False(t, hostFailed(bg, replyErr("TRYAGAIN")))
	assert.False(t, hostFailed(bg, replyErr("MASTERDOWN link down")))
	assert.False(t, hostFailed(bg, redis.ErrPoolTimeout))
}
