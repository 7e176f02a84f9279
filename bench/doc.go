// Package bench holds tierkit's side-by-side benchmarks against public peer libraries,
// one sub-package per tierkit package (bench/coalesce, bench/batcher, ...). It is a
// module of its own so that the peers, pinned in its go.mod, never become
// dependencies of the root module.
//
// Run one comparison with, for example:
//
//	cd bench && go test -run '^$' -bench . -count 8 ./coalesce/ | tee new.txt
//	benchstat -col /impl new.txt
//
// Results, with the command, the machine and benchstat tables, are in README.md and in
// each sub-package's README.md.
package bench
