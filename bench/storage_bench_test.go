package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkStorage is `make bench-storage`: the benchmark on a fresh real
// tmpfs and on a folder in /var/tmp, printed as the table, then RAMBar's
// figures against dd, fio and tar on both targets (ratios of paired runs).
// Quick sizes unless RAMBAR_BENCH_FULL=1 (1 GiB sequential, 500 fsyncs,
// 2,900 files, 20,000 small files: minutes, and 1.5 GiB of memory).
func BenchmarkStorage(b *testing.B) {
	full := os.Getenv("RAMBAR_BENCH_FULL") == "1"
	size := "512m"
	if full {
		size = "1536m"
	}
	ram := mountTmpfs(b, size)
	disk := diskDir(b)
	targets := []Target{{Name: "tmpfs", Dir: ram, RAM: true}, {Name: "/var/tmp", Dir: disk}}
	opts := Options{Quick: !full, Runs: 5}
	for b.Loop() {
		rep, err := Run(context.Background(), targets, opts, func(p Progress) { fmt.Fprintf(os.Stderr, "\r\033[K%s", p) })
		fmt.Fprint(os.Stderr, "\r\033[K")
		if err != nil {
			b.Fatal(err)
		}
		fmt.Println(rep.Table())
		var all []Comparison
		for _, t := range targets {
			cs, err := Compare(context.Background(), t, opts, func(s string) { fmt.Fprintf(os.Stderr, "\r\033[K%s", s) })
			fmt.Fprint(os.Stderr, "\r\033[K")
			if err != nil {
				b.Fatal(err)
			}
			all = append(all, cs...)
		}
		fmt.Println("RAMBar against standard tools on the same targets (ratio: median of paired runs; MiB/s above 1 = RAMBar faster, µs/s above 1 = RAMBar slower):")
		fmt.Println(ComparisonTable(all))
	}
}
