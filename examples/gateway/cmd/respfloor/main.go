// Command respfloor is the least a Go RESP server built like the gateway's
// front end (redcon, a goroutine per connection, Go's netpoller) can do: it
// answers every GET with one fixed 64-byte value and anything else with OK,
// with no request path, no backend and no cache. compare.sh runs it (FLOOR=1)
// next to twemproxy on the GET and hot-key rows, so the part of the gap at
// pipeline 1 that the I/O model costs is measured rather than guessed: a row
// where the floor itself trails twemproxy cannot be won by the request path.
//
//	go run ./gateway/cmd/respfloor -addr 127.0.0.1:7399
package main

import (
	"bytes"
	"flag"
	"log"
	"net"

	"github.com/tidwall/redcon"
)

// value is what every GET answers: 64 bytes, the size compare.sh's rows use.
var value = bytes.Repeat([]byte("x"), 64)

func main() {
	addr := flag.String("addr", "127.0.0.1:7399", "listen address (loopback)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if err := serve(ln); err != nil {
		log.Fatal(err)
	}
}

// serve answers RESP on ln, a goroutine per connection, until ln is closed;
// it then closes the connections and returns nil.
func serve(ln net.Listener) error { return redcon.Serve(ln, handle, nil, nil) }

// handle answers one command: GET with value, PING with PONG, anything else
// with OK (redcon refuses an empty command itself, as a protocol error).
func handle(conn redcon.Conn, cmd redcon.Command) {
	switch {
	case len(cmd.Args) == 0:
		conn.WriteError("ERR empty command")
	case bytes.EqualFold(cmd.Args[0], []byte("GET")):
		conn.WriteBulk(value)
	case bytes.EqualFold(cmd.Args[0], []byte("PING")):
		conn.WriteString("PONG")
	default:
		conn.WriteString("OK")
	}
}
