package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// section is one stop of the tour.
type section struct {
	order int    // position in the tour: foundations first
	name  string // package name, also the command-line selector
	title string // one line saying what the section shows
	run   func(w io.Writer) error
}

// sections is filled by the init functions of the section files.
var sections []section

func main() {
	os.Exit(command(os.Stdout, os.Stderr, os.Args[1:]))
}

// errUsage is wrapped by run's error for arguments that name no section.
var errUsage = errors.New("usage")

// command runs the tour for args and returns the exit status: 0, 1 when a
// section failed, 2 for bad usage (an argument that names no section), as
// the other example commands. -h prints the sections and returns 0.
func command(out, errOut io.Writer, args []string) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprintf(out, "usage: tour [section ...]\nsections: %s\n", sectionNames(sorted()))
		return 0
	}
	if err := run(out, args); err != nil {
		fmt.Fprintln(errOut, "tour:", err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

// sorted returns the sections in tour order.
func sorted() []section {
	slices.SortFunc(sections, func(a, b section) int { return a.order - b.order })
	return sections
}

func run(w io.Writer, only []string) error {
	slices.SortFunc(sections, func(a, b section) int { return a.order - b.order })
	var names []string
	for _, s := range sections {
		names = append(names, s.name)
	}
	for _, o := range only {
		if !slices.Contains(names, o) {
			return fmt.Errorf("%w: no section %q (have: %s)", errUsage, o, strings.Join(names, ", "))
		}
	}
	// The header names the sections that run, in the order they run; asked for
	// a few, it says how many of the tour's they are.
	var picked []section
	for _, s := range sections {
		if len(only) == 0 || slices.Contains(only, s.name) {
			picked = append(picked, s)
		}
	}
	if len(picked) == len(sections) {
		fmt.Fprintf(w, "tierkit tour: %d section(s): %s\n", len(sections), strings.Join(names, ", "))
	} else {
		fmt.Fprintf(w, "tierkit tour: %d of %d section(s): %s\n", len(picked), len(sections), sectionNames(picked))
	}
	for _, s := range picked {
		fmt.Fprintf(w, "\n== %s: %s\n", s.name, s.title)
		start := time.Now()
		if err := s.run(w); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(w, "   (section took %v)\n", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// sectionNames joins the names of ss with commas.
func sectionNames(ss []section) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.name
	}
	return strings.Join(names, ", ")
}
