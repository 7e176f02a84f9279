package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tierkit/tierkit/internal/corelat"
)

func main() {
	err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "c2c:", err)
		os.Exit(1)
	}
}

// parseFlags refuses any argument, printing usage and errors to errOut: c2c
// has no settings, and it ran its measurement for "c2c -h" and for any
// argument, as if it were one.
func parseFlags(args []string, errOut io.Writer) error {
	fs := flag.NewFlagSet("c2c", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {
		fmt.Fprintln(errOut, "usage: c2c (no flags or arguments): prints this machine's core-to-core round trip")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q: c2c takes none", fs.Arg(0))
		fmt.Fprintln(errOut, "c2c:", err)
		return err
	}
	return nil
}

func run(w io.Writer) error {
	d, ok := corelat.RoundTrip(5, 4000)
	if !ok {
		return fmt.Errorf("cannot measure: needs GOMAXPROCS >= 2 and two goroutines running at once")
	}
	_, err := fmt.Fprintf(w, "core-to-core round trip: %d ns\n", d.Nanoseconds())
	return err
}
