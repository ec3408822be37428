// Command gen writes the Go fixtures of tests/pprof.sh: cpu.pb.gz, a CPU
// profile of a few busy functions (one called under goroutine labels, one
// small enough to be inlined), and heap.pb.gz, a heap profile of a few
// allocation sites, and labels.pb.gz, a CPU profile of two goroutines under
// the goroutine labels worker=a and worker=b (each spinning in a function
// of its own) beside an unlabelled one.  Only the standard library: run
// `go run gen.go` here.
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink []byte
var keep [][]byte

//go:noinline
func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

func small(n int) int { return spin(n) + 1 } // inlined into its callers

//go:noinline
func hashLoop(d time.Duration) int {
	s := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		s += small(20000)
	}
	return s
}

//go:noinline
func worker(d time.Duration) int {
	return hashLoop(d)
}

//go:noinline
func allocBig() {
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 256<<10))
	}
}

//go:noinline
func allocSmall() {
	for i := 0; i < 20000; i++ {
		keep = append(keep, make([]byte, 512))
	}
}

//go:noinline
func busyA(d time.Duration) int { return hashLoop(d) }

//go:noinline
func busyB(d time.Duration) int { return hashLoop(d) }

// labelled writes labels.pb.gz: worker=a runs busyA, worker=b busyB (with a
// second label, kind=batch), main runs worker unlabelled, all at once.
func labelled() {
	f, err := os.Create("labels.pb.gz")
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	done := make(chan int)
	go pprof.Do(context.Background(), pprof.Labels("worker", "a"), func(context.Context) {
		done <- busyA(400 * time.Millisecond)
	})
	go pprof.Do(context.Background(), pprof.Labels("worker", "b", "kind", "batch"), func(context.Context) {
		done <- busyB(400 * time.Millisecond)
	})
	worker(400 * time.Millisecond)
	<-done
	<-done
	pprof.StopCPUProfile()
	f.Close()
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "labels" {
		labelled()
		return
	}
	runtime.MemProfileRate = 4096
	f, err := os.Create("cpu.pb.gz")
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	worker(300 * time.Millisecond)
	done := make(chan int)
	pprof.Do(context.Background(), pprof.Labels("job", "labelled"), func(context.Context) {
		go func() { done <- worker(200 * time.Millisecond) }()
		<-done
	})
	pprof.StopCPUProfile()
	f.Close()

	allocBig()
	allocSmall()
	runtime.GC()
	h, err := os.Create("heap.pb.gz")
	if err != nil {
		panic(err)
	}
	pprof.WriteHeapProfile(h)
	h.Close()
}
