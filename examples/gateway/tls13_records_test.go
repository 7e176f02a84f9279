//go:build unix

package main

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"hash"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// tls13Writer writes TLS 1.3 records on the connection of a crypto/tls
// client past its handshake, with the client's application traffic keys
// (read from its key log): crypto/tls has no way to send a KeyUpdate.
type tls13Writer struct {
	raw    net.Conn
	hash   func() hash.Hash
	keyLen int
	secret []byte
	aead   cipher.AEAD
	iv     []byte
	seq    uint64
}

// dialTLS13Writer completes a TLS 1.3 handshake with the gateway at addr and
// returns a writer of records on its connection. The caller closes raw.
func dialTLS13Writer(t *testing.T, addr string, pool *x509.CertPool) *tls13Writer {
	t.Helper()
	// Small socket buffers, set before the connection's window is
	// announced: the answers it never reads fill them in a few hundred.
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		if cerr := rc.Control(func(fd uintptr) { err = smallBuffers(int(fd)) }); cerr != nil {
			return cerr
		}
		return err
	}}
	raw, err := d.Dial("tcp", addr)
	require.NoError(t, err)
	var keys keyLog
	c := tls.Client(raw, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS13, KeyLogWriter: &keys})
	require.NoError(t, c.Handshake())
	w := &tls13Writer{raw: raw}
	switch s := c.ConnectionState().CipherSuite; s {
	case tls.TLS_AES_128_GCM_SHA256:
		w.hash, w.keyLen = sha256.New, 16
	case tls.TLS_AES_256_GCM_SHA384:
		w.hash, w.keyLen = sha512.New384, 32
	default:
		_ = raw.Close()
		t.Skipf("cipher suite %s: the test writes AES-GCM records only", tls.CipherSuiteName(s))
	}
	secret := keys.secret("CLIENT_TRAFFIC_SECRET_0")
	require.NotNil(t, secret, "the key log has the client's traffic secret")
	w.setSecret(secret)
	return w
}

func (w *tls13Writer) setSecret(secret []byte) {
	w.secret = secret
	block, err := aes.NewCipher(w.expand(secret, "key", w.keyLen))
	if err != nil {
		panic(err)
	}
	if w.aead, err = cipher.NewGCM(block); err != nil {
		panic(err)
	}
	w.iv = w.expand(secret, "iv", 12)
	w.seq = 0
}

// expand is HKDF-Expand-Label with an empty context (RFC 8446, 7.1).
func (w *tls13Writer) expand(secret []byte, label string, n int) []byte {
	full := "tls13 " + label
	info := append([]byte{byte(n >> 8), byte(n), byte(len(full))}, full...)
	info = append(info, 0)
	out, err := hkdf.Expand(w.hash, secret, string(info), n)
	if err != nil {
		panic(err)
	}
	return out
}

// record returns the protected record of content of type typ.
func (w *tls13Writer) record(typ byte, content []byte) []byte {
	inner := append(slices.Clone(content), typ)
	n := len(inner) + w.aead.Overhead()
	hdr := []byte{23, 3, 3, byte(n >> 8), byte(n)}
	nonce := slices.Clone(w.iv)
	for i := range 8 {
		nonce[len(nonce)-1-i] ^= byte(w.seq >> (8 * i))
	}
	w.seq++
	return w.aead.Seal(hdr, nonce, inner, hdr)
}

// keyUpdate returns a KeyUpdate record that requests the peer's update (the
// peer answers with a KeyUpdate of its own), and moves to the next keys.
func (w *tls13Writer) keyUpdate() []byte {
	rec := w.record(22, []byte{24, 0, 0, 1, 1})
	w.setSecret(w.expand(w.secret, "traffic upd", w.hash().Size()))
	return rec
}

// keyLog is a tls.Config.KeyLogWriter that keeps the lines.
type keyLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (k *keyLog) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.b.Write(p)
}

// secret returns the secret of the key log's line labeled label, or nil.
func (k *keyLog) secret(label string) []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	sc := bufio.NewScanner(strings.NewReader(k.b.String()))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == label {
			s, err := hex.DecodeString(f[2])
			if err == nil {
				return s
			}
		}
	}
	return nil
}

// floodKeyUpdates sends w's peer n KeyUpdate requests, 15 at a time
// between the bytes of a command that never ends (crypto/tls refuses more
// than 16 records in a row that carry no data), and reads none of the
// answers. It gives up at until: a peer stuck on the answers stops reading.
func floodKeyUpdates(w *tls13Writer, n int, until time.Time) {
	var b []byte
	for i := range n {
		b = append(b, w.keyUpdate()...)
		if i%15 == 14 {
			b = append(b, w.record(23, []byte("x"))...)
		}
	}
	_ = w.raw.SetWriteDeadline(until)
	_, _ = w.raw.Write(b)
}

// keyUpdateFlood serves a memkv gateway with idle over TLS and connects a
// client that floods it with KeyUpdates and reads none of the answers
// (floodKeyUpdates, given up 2 s from now). It returns the server, how it
// serves and when the flood started.
func keyUpdateFlood(t *testing.T, idle time.Duration) (*Server, tlsServing, time.Time) {
	t.Helper()
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	srv := memkvServer(t, Config{Limits: Limits{IdleTimeout: Duration(idle)}})
	s := serveTLS(t, srv, certFile, keyFile)
	w := dialTLS13Writer(t, s.addr, pool)
	t.Cleanup(func() { _ = w.raw.Close() })
	start := time.Now()
	floodKeyUpdates(w, 1024, start.Add(2*time.Second)) // the answers overflow the buffers
	return srv, s, start
}

// tlsServing is a Server serving over TLS (serveTLS).
type tlsServing struct {
	addr   string
	served <-chan error    // Serve's result
	stuck  <-chan struct{} // closed once a write to a client has waited 100 ms
	closed <-chan struct{} // closed when the first connection is closed
}

// serveTLS serves srv over TLS with the certificate in certFile and keyFile
// on a free loopback port.
func serveTLS(t *testing.T, srv *Server, certFile, keyFile string) tlsServing {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	require.NoError(t, err)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := &watchListener{Listener: raw, stuck: make(chan struct{}), closed: make(chan struct{})}
	served := make(chan error, 1)
	go func() {
		served <- srv.Serve(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}()
	return tlsServing{addr: raw.Addr().String(), served: served, stuck: ln.stuck, closed: ln.closed}
}

// watchListener closes stuck once a write on a connection it accepted has
// waited 100 ms (the client's window is full), and closed when the first
// one is closed.
type watchListener struct {
	net.Listener
	stuck, closed         chan struct{}
	stuckOnce, closedOnce sync.Once
}

func (l *watchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	// A small send buffer: a client that does not read fills it in a few
	// hundred records rather than megabytes.
	if err := c.(*net.TCPConn).SetWriteBuffer(1); err != nil {
		_ = c.Close()
		return nil, err
	}
	return &watchConn{Conn: c, l: l}, nil
}

type watchConn struct {
	net.Conn
	l *watchListener
}

func (c *watchConn) Write(p []byte) (int, error) {
	waited := time.AfterFunc(100*time.Millisecond, func() { c.l.stuckOnce.Do(func() { close(c.l.stuck) }) })
	defer waited.Stop()
	return c.Conn.Write(p)
}

func (c *watchConn) Close() error {
	c.l.closedOnce.Do(func() { close(c.l.closed) })
	return c.Conn.Close()
}

// smallBuffers sets the smallest send and receive buffers the kernel allows
// on socket fd.
func smallBuffers(fd int) error {
	return errors.Join(syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1),
		syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, 1))
}
