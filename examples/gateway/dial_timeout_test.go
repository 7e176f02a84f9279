package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackendDialTimeoutSetupCounts: rueidis runs a connection's setup
// (HELLO, CLIENT SETNAME) within its dial timeout, not the TCP connect
// alone: a shard that accepts the connection but answers the setup later
// than the dial timeout fails the dial with "context deadline exceeded".
// The fixed 500 ms failed the gateway's dials so on a host loaded enough
// that a loopback setup took longer (TestRedisACLUserWithoutClient,
// rueidis, under a load average of 10); backend.dial_timeout raises it.
func TestBackendDialTimeoutSetupCounts(t *testing.T) {
	s := startRedis(t)
	p := s.cmd.Process
	require.NoError(t, p.Signal(syscall.SIGSTOP)) // the kernel still accepts its connections
	t.Cleanup(func() { _ = p.Signal(syscall.SIGCONT) })

	start := time.Now()
	_, err := dialFast(s.addr, 1, redisAuth{}, clientName)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the default dial timeout bounds the setup")
	assert.Less(t, time.Since(start), 2*defaultDialTimeout)

	// The server answers 700 ms into the dial: past the default, within 5 s.
	timer := time.AfterFunc(700*time.Millisecond, func() { _ = p.Signal(syscall.SIGCONT) })
	defer timer.Stop()
	c, err := dialFast(s.addr, 1, redisAuth{dialTimeout: 5 * time.Second}, clientName)
	require.NoError(t, err, "a longer dial_timeout waits for a slow setup")
	defer c.Close()
	require.NoError(t, c.Do(context.Background(), c.B().Ping().Build()).Error())
}

// TestBackendDialTimeoutConfig: backend.dial_timeout defaults to 500ms on
// the redis backend, is decoded from the file, and is refused when negative
// or on memkv.
func TestBackendDialTimeoutConfig(t *testing.T) {
	redis := func(d Duration) Config {
		return Config{Backend: BackendConfig{Kind: "redis", Redis: []string{"127.0.0.1:7001"}, DialTimeout: d}}
	}
	cfg, err := redis(0).withDefaults()
	require.NoError(t, err)
	assert.Equal(t, Duration(defaultDialTimeout), cfg.Backend.DialTimeout)

	cfg, err = decodeConfig([]byte(`{"backend": {"kind": "redis", "redis": ["127.0.0.1:7001"], "dial_timeout": "3s"}}`))
	require.NoError(t, err)
	cfg, err = cfg.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, Duration(3*time.Second), cfg.Backend.DialTimeout)

	_, err = redis(Duration(-time.Second)).withDefaults()
	require.ErrorContains(t, err, "dial_timeout")

	_, err = Config{Backend: BackendConfig{DialTimeout: Duration(time.Second)}}.withDefaults()
	require.ErrorContains(t, err, "dial_timeout", "a Redis setting on memkv")

	assert.Equal(t, 3*time.Second, redisAuth{dialTimeout: 3 * time.Second}.dial())
	assert.Equal(t, defaultDialTimeout, redisAuth{}.dial())
}
