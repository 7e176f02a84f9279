package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"

	"github.com/tidwall/redcon"
)

// value is what every GET answers: 64 bytes, the size compare.sh's rows use.
var value = bytes.Repeat([]byte("x"), 64)

func main() {
	addr, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	if err := serve(ln); err != nil {
		log.Fatal(err)
	}
}

// parseFlags parses args, printing usage and errors to errOut. An argument
// that is not a flag is refused: flag parsing stops there, so "respfloor
// 127.0.0.1:7500" served on the default address.
func parseFlags(args []string, errOut io.Writer) (addr string, err error) {
	fs := flag.NewFlagSet("respfloor", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.StringVar(&addr, "addr", "127.0.0.1:7399", "listen address (loopback)")
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: the address is a flag (-addr host:port)", fs.Arg(0))
		fmt.Fprintln(errOut, "respfloor:", err)
		return "", err
	}
	return addr, nil
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
