// A CPU-bound program that writes its own CPU profile (runtime/pprof):
// tests/pprof-sym.sh builds it, runs it, strips the profile's names
// (tests/pprof-strip.py) and has flamekit and go tool pprof symbolize it
// again from this binary.  No function is inlined, so the runtime's own
// names (one line per location) are what symbolizing the addresses gives.
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

var sink int

//go:noinline
func sq(x int) int { return x*x ^ x>>3 }

//go:noinline
func leaf(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += sq(i + s&7)
	}
	return s
}

//go:noinline
func mid(n int) int { return leaf(n) + leaf(n/2) }

//go:noinline
func other(n int) int { return leaf(2 * n) }

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	for end := time.Now().Add(600 * time.Millisecond); time.Now().Before(end); {
		sink += mid(200000) + other(100000)
	}
	pprof.StopCPUProfile()
	f.Close()
}
