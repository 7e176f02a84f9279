package scripts_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// raceSkipped is a test of a module (root, examples or bench) that skips
// itself under the race detector: Name in package Pkg ("./overload"),
// relative to module Mod ("examples", "." for the root).
type raceSkipped struct{ Mod, Pkg, Name string }

// findRaceSkipped lists the Test functions of the three modules whose body
// skips under the race detector, "if raceEnabled { ... t.Skip }". The root
// module's 386 run is without -race, but it does not run where the kernel
// cannot execute 386 binaries: it counts for none.
func findRaceSkipped(t *testing.T) []raceSkipped {
	t.Helper()
	var found []raceSkipped
	for _, mod := range []string{".", "examples", "bench"} {
		root := filepath.Join("..", mod)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != root {
				// A nested module is scanned as its own; .git and testdata hold no tests.
				if _, statErr := os.Stat(filepath.Join(path, "go.mod")); statErr == nil ||
					strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
					return filepath.SkipDir
				}
			}
			if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if ok && fn.Body != nil && strings.HasPrefix(fn.Name.Name, "Test") && skipsUnderRace(fn.Body) {
					found = append(found, raceSkipped{mod, "./" + filepath.ToSlash(rel), fn.Name.Name})
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	return found
}

// skipsUnderRace reports whether body holds, at its top level, an
// "if raceEnabled" whose block calls a Skip method.
func skipsUnderRace(body *ast.BlockStmt) bool {
	for _, st := range body.List {
		is, ok := st.(*ast.IfStmt)
		if !ok {
			continue
		}
		if id, ok := is.Cond.(*ast.Ident); !ok || id.Name != "raceEnabled" {
			continue
		}
		skips := false
		ast.Inspect(is.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Skip") {
				skips = true
			}
			return !skips
		})
		if skips {
			return true
		}
	}
	return false
}

// TestTestShRunsRaceSkippedTests: a test of the examples or bench module
// that skips itself under -race (examples/overload's TestClosedLoop, a
// single-threaded model that would take 50 s there) ran nowhere in
// test.sh, whose only run of those modules without -race is the benchmark
// pass with -run '^$': the README's test command, and so CI, never ran it.
// test.sh runs each such test once without -race now. The same held for the
// root module's (shed's allocation tests) wherever the kernel cannot execute
// 386 binaries (the machine this was found on is one): the 386 run, the
// root module's only one without -race, is built and vetted there, not run.
func TestTestShRunsRaceSkippedTests(t *testing.T) {
	skipped := findRaceSkipped(t)
	require.NotEmpty(t, skipped, "no test skips under -race: the scan finds nothing to check")
	out, goLog, err := runTestSh(t, []byte("#!/bin/sh\nexit 0\n"))
	require.NoError(t, err, "test.sh: %s", out)
	lines := strings.Split(goLog, "\n")
	for _, s := range skipped {
		ran := false
		for _, l := range lines {
			f := strings.Fields(l)
			if len(f) < 2 || f[1] != "test" || strings.Contains(l, " -race ") || !strings.HasSuffix(l, " "+s.Pkg) {
				continue
			}
			for i, a := range f[:len(f)-1] {
				if a == "-run" && strings.Contains(f[i+1], s.Name) {
					ran = true
				}
			}
		}
		require.True(t, ran, "%s: %s's %s skips under -race, and test.sh never runs it without:\n%s",
			s.Mod, s.Pkg, s.Name, goLog)
	}
}
