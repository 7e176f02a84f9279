package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var b bytes.Buffer
	err := run(&b)
	if runtime.GOMAXPROCS(0) < 2 {
		if err == nil {
			t.Fatal("run measured with one P")
		}
		return
	}
	if err != nil {
		t.Skipf("no measurement on a loaded machine: %v", err)
	}
	if !strings.HasPrefix(b.String(), "core-to-core round trip: ") || !strings.HasSuffix(b.String(), " ns\n") {
		t.Fatalf("output %q", b.String())
	}
}
