//go:build linux

// Command benchmirror measures mirror's saves and restores against rsync -a
// --delete and tar -c | tar -x (make bench-mirror; needs root to mount
// tmpfs and drop caches). It runs trees of 10,000, 50,000 and 200,000
// files shaped like a source checkout (or one size, -files N) and a tree
// of large files (-large SIZE, 4 GiB by default; 0 skips it), prints each
// time, how it grows with the tree, the save's peak memory (the saving
// child's VmHWM) and the store's size for 200,000 tiny files and for a
// 1 GiB sparse file with 4 KiB of data, each figure beside its target
// (issue 15) and marked met or missed. Full saves are the quicker of two
// rounds, the tools taking turns; saves after changes the quickest of
// five; restores start with nothing cached, as at login. Then Mirror
// folders (issue 22) of 10,000 and 100,000 files, in one folder and
// shaped like a checkout, on the local disk: the load onto a tmpfs from a
// cold cache, and the save of the disk with its write-back after 1, 100
// and 1% of the files changed (the quickest of five rounds, the tools
// taking turns), each beside rsync -a --delete doing the same, with the
// load's and the write-back's peak memory. Then saves by the change feed
// (issue 26) at 200,000 files (or -files N): a save after 10 changed files
// by the feed beside the same save walking the disk and rsync -a
// --delete, the time from a write to a durable snapshot under a steady
// load (-steady, 60 s), and the CPU three continuously saved disks take
// idle and written (-idle, 60 s), and a file appended every 10 ms through
// a descriptor kept open (-steady): the time from each write to a durable
// snapshot holding it, p95. Then seed 004's workload (issue 36): a pnpm
// monorepo's tree of 480,000 paths in 60,000 folders, most names hard
// links into one store folder, saved from the terminal with nothing and
// one file changed beside rsync -aH --delete, by the feed, and
// continuously while node_modules is removed and made again (pnpmsuite.go).
// Then the agent (issue 41, agentsuite.go): `rambar save` of 1 changed
// file in 100,000 (or -files N) through a running `rambar agent`, walking
// the disk and by rsync -a --delete, and the first `rambar save` after a
// Mirror load of as many files, beside rsync; these run the real rambar
// binary (-rambar, built by make bench-mirror).
// -only keep, mirror, feed, pnpm or agent runs one part. It exits 1 when a
// target is missed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		os.Exit(child(os.Args[2:]))
	}
	files := flag.Int("files", 0, "files in the generated tree (0: 10,000, 50,000 and 200,000 in turn; mirror folders 10,000 and 100,000)")
	only := flag.String("only", "", "keep: saves and restores only; mirror: mirror folders only; feed: saves by the change feed only; pnpm: seed 004's workload only; agent: rambar save through the agent, and the first save after a Mirror load")
	bin := flag.String("rambar", "bin/rambar", "the rambar binary the agent's figures run")
	steady := flag.Duration("steady", time.Minute, "how long the steady load of the feed's figures writes")
	idle := flag.Duration("idle", time.Minute, "how long three continuous disks stay idle (and then written) for the CPU figures")
	large := flag.String("large", "4GiB", "total size of the large-file tree (e.g. 512MiB for a quick run; 0 skips it)")
	dest := flag.String("dest", "/var/tmp", "folder on the local disk to save into")
	flag.Parse()
	var largeSize int64
	if *large != "0" {
		s, err := ramdisk.ParseSize(*large, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-mirror: -large:", err)
			os.Exit(2)
		}
		largeSize = int64(s)
	}
	counts, mirrorCounts := []int{10000, 50000, 200000}, []int{10000, 100000}
	if *files > 0 {
		counts, mirrorCounts = []int{*files}, []int{*files}
	}
	if *only != "" && *only != "keep" && *only != "mirror" && *only != "feed" && *only != "pnpm" && *only != "agent" {
		fmt.Fprintln(os.Stderr, "bench-mirror: -only: keep, mirror, feed, pnpm or agent")
		os.Exit(2)
	}
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "bench-mirror: needs root to mount a tmpfs")
		os.Exit(1)
	}
	r := &report{}
	if *only == "" || *only == "keep" {
		if err := run(r, counts, largeSize, *dest); err != nil {
			fmt.Fprintln(os.Stderr, "bench-mirror:", err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "mirror" {
		for _, tree := range mirrorTrees(mirrorCounts) {
			if err := mirrorSuite(r, tree, *dest); err != nil {
				fmt.Fprintln(os.Stderr, "bench-mirror:", err)
				os.Exit(1)
			}
		}
	}
	if *only == "" || *only == "feed" {
		n := 200000
		if *files > 0 {
			n = *files
		}
		if err := feedSuite(r, n, *dest, *steady, *idle); err != nil {
			fmt.Fprintln(os.Stderr, "bench-mirror:", err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "pnpm" {
		if err := pnpmSuite(r, *dest); err != nil {
			fmt.Fprintln(os.Stderr, "bench-mirror:", err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "agent" {
		n := 100000
		if *files > 0 {
			n = *files
		}
		if err := agentSuite(r, n, *dest, *bin); err != nil {
			fmt.Fprintln(os.Stderr, "bench-mirror:", err)
			os.Exit(1)
		}
	}
	if !r.print(os.Stdout) {
		os.Exit(1)
	}
}

// child runs one Keeper operation so its peak memory can be measured:
// child setup|save|restore|load|dirty DATA VOL (dirty: what info asks, whether
// the disk changed since its last save), or child pnpm|churn - VOL to
// generate the pnpm tree at VOL or remove and make again its node_modules
// (pnpmChild: the user's programs, apart from the following process).
// With BENCHMIRROR_CPUPROFILE set it writes its CPU profile there.
func child(args []string) int {
	if p := os.Getenv("BENCHMIRROR_CPUPROFILE"); p != "" {
		stop, err := cpuProfile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer stop()
	}
	k := keeper.NewKeeper(args[1])
	v := ramdisk.Volume{Name: "Bench", MountPoint: args[2]}
	var err error
	var r keeper.Result
	switch args[0] {
	case "pnpm", "churn":
		return pnpmChild(args[0], args[2])
	case "setup":
		_, err = k.Setup(v.Name, keeper.Options{Mode: ramdisk.Keep})
	case "dirty":
		var d bool
		d, err = k.Dirty(v)
		r.CopiedFiles = map[bool]int{true: 1}[d]
	case "save":
		r, err = k.Save(context.Background(), v, keeper.SaveOptions{})
	case "restore":
		r, err = k.Restore(context.Background(), v, keeper.RestoreOptions{})
	case "load":
		r, err = k.Load(context.Background(), v, nil)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var wb time.Duration
	if r.Folder != nil {
		wb = r.Folder.Took
	}
	fmt.Printf("%d %d %d %d\n", r.CopiedFiles, r.CopiedBytes, peakRSS(), wb)
	return 0
}

// peakRSS is this process's peak resident memory (VmHWM), in bytes. The
// parent's rusage cannot tell it: Linux counts in a child's ru_maxrss the
// memory of the parent it was forked from, so a parent holding a large
// tree inflates every child's figure.
func peakRSS() int64 { return statusBytes("VmHWM:") }

// statusBytes is the figure of /proc/self/status field (e.g. "VmRSS:"),
// in bytes; 0 when it cannot be read.
func statusBytes(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}

// run measures every tree and adds the figures to r.
func run(r *report, counts []int, large int64, dest string) error {
	var prev *times
	for _, n := range counts {
		t, err := suite(r, fmt.Sprintf("%d files", n), dest, func(root string) (int64, error) { return generate(root, n) }, true)
		if err != nil {
			return err
		}
		t.n = n
		if prev != nil {
			r.growth(prev, t)
		}
		prev = t
	}
	if large > 0 {
		name := fmt.Sprintf("large files, %s", ramdisk.Size(large).Short())
		if _, err := suite(r, name, dest, func(root string) (int64, error) { return generateLarge(root, large) }, false); err != nil {
			return err
		}
	}
	if err := storeSizes(r, dest); err != nil {
		return err
	}
	return nil
}

// cpuProfile starts writing this process's CPU profile to path; stop
// ends it.
func cpuProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
