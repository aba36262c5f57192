//go:build linux

// Command benchmirror measures mirror's saves and restores against rsync -a
// --delete and cp -a, on a generated tree shaped like a source checkout
// (make bench-mirror; needs root to mount a tmpfs). It prints each time and
// the ratios side by side, and the save's peak resident memory measured on
// a child process.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"rambar/mirror"
	"rambar/ramdisk"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		os.Exit(child(os.Args[2:]))
	}
	files := flag.Int("files", 50000, "files in the generated tree")
	dest := flag.String("dest", "/var/tmp", "folder on the local disk to save into")
	flag.Parse()
	if err := run(*files, *dest); err != nil {
		fmt.Fprintln(os.Stderr, "bench-mirror:", err)
		os.Exit(1)
	}
}

// child runs one Keeper operation so its peak memory can be measured:
// child save DATA VOL | child restore DATA VOL.
func child(args []string) int {
	k := mirror.NewKeeper(args[1])
	v := ramdisk.Volume{Name: "Bench", MountPoint: args[2]}
	var err error
	var r mirror.Result
	switch args[0] {
	case "save":
		r, err = k.Save(context.Background(), v, mirror.SaveOptions{})
	case "restore":
		r, err = k.Restore(context.Background(), v, mirror.RestoreOptions{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %d\n", r.CopiedFiles, r.CopiedBytes)
	return 0
}

// generate writes a deterministic tree of n files shaped like a source
// checkout: nested folders, mostly small files (sizes log-uniform from 64 B
// to 64 KiB), a few large ones (1-3 MiB), some symlinks.
func generate(root string, n int) (int64, error) {
	r := rand.New(rand.NewSource(1))
	pool := make([]byte, 8<<20)
	r.Read(pool)
	var total int64
	dirs := []string{""}
	exts := []string{".go", ".c", ".h", ".py", ".js", ".md", ".json", ".txt", ".png", ".o"}
	for i := 0; i < n; i++ {
		// A new folder every dozen files, under a random existing one, at
		// most six deep.
		if i%12 == 0 {
			parent := dirs[r.Intn(len(dirs))]
			if strings.Count(parent, "/") >= 6 {
				parent = dirs[r.Intn(min(len(dirs), 20))]
			}
			d := filepath.Join(parent, fmt.Sprintf("pkg%d", len(dirs)))
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				return 0, err
			}
			dirs = append(dirs, d)
		}
		size := int(64 * math.Pow(1024, r.Float64()))
		if i%2500 == 0 {
			size = 1<<20 + r.Intn(2<<20)
		}
		off := r.Intn(len(pool) - size)
		p := filepath.Join(root, dirs[len(dirs)-1-r.Intn(min(len(dirs), 8))], fmt.Sprintf("f%d%s", i, exts[r.Intn(len(exts))]))
		if err := os.WriteFile(p, pool[off:off+size], 0o644); err != nil {
			return 0, err
		}
		if i%1000 == 0 {
			os.Symlink(filepath.Base(p), p+".link")
		}
		total += int64(size)
	}
	return total, nil
}

// change rewrites every hundredth file (1% of the tree) in place, a
// different hundredth each round.
func change(root string, round int) (int, error) {
	n := 0
	i := 0
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() || strings.HasSuffix(p, mirror.MarkerName) {
			return err
		}
		i++
		if i%100 == round {
			n++
			return os.WriteFile(p, []byte(fmt.Sprintf("changed %d in round %d\n", i, round)), 0o644)
		}
		return nil
	})
	return n, err
}

func syncfs(dir string) {
	f, err := os.Open(dir)
	if err == nil {
		unix.Syncfs(int(f.Fd()))
		f.Close()
	}
}

// timed runs argv and then syncfs on dst's file system, so the tools'
// writes are as durable as mirror's (which flushes before committing).
func timed(dst string, argv ...string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	syncfs(dst)
	return time.Since(start), nil
}

// ours runs a Keeper operation in a child and returns its time and peak RSS.
func ours(op, data, vol string) (time.Duration, int64, string, error) {
	start := time.Now()
	cmd := exec.Command("/proc/self/exe", "child", op, data, vol)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil {
		return 0, 0, "", fmt.Errorf("%s: %w", op, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return d, ru.Maxrss * 1024, strings.TrimSpace(string(out)), nil
}

func run(n int, dest string) error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("needs root to mount a tmpfs")
	}
	src, err := os.MkdirTemp("", "rambar-bench-src-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	// The disk and the restore target are tmpfs mounts, as RAM disks are.
	vol, back := filepath.Join(src, "vol"), filepath.Join(src, "back")
	for _, m := range []string{vol, back} {
		os.Mkdir(m, 0o755)
		if err := unix.Mount("rambar-bench", m, "tmpfs", 0, "size=3g,mode=0755"); err != nil {
			return fmt.Errorf("mount tmpfs: %w", err)
		}
		defer unix.Unmount(m, unix.MNT_DETACH)
	}
	work, err := os.MkdirTemp(dest, "rambar-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	fmt.Printf("generating %d files...\n", n)
	total, err := generate(vol, n)
	if err != nil {
		return err
	}
	fmt.Printf("tree: %d files, %s, in tmpfs %s; destination %s\n\n", n, ramdisk.Size(total).Short(), vol, work)
	data := filepath.Join(work, "data")
	k := mirror.NewKeeper(data)
	if _, err := k.Setup("Bench", mirror.Options{Mode: ramdisk.Keep}); err != nil {
		return err
	}
	rs, cpDst := filepath.Join(work, "rsync"), filepath.Join(work, "cp")
	type row struct {
		name          string
		us, rsync, cp time.Duration
		target        float64
		rss           int64
		note          string
	}
	var rows []row
	syncfs(work)

	// Full save.
	tR, err := timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/")
	if err != nil {
		return err
	}
	tC, err := timed(work, "cp", "-a", vol, cpDst)
	if err != nil {
		return err
	}
	tU, rss, out, err := ours("save", data, vol)
	if err != nil {
		return err
	}
	rows = append(rows, row{"full save", tU, tR, tC, 1.5, rss, out})

	// Nothing changed, then 1% changed: the quickest of three rounds each,
	// the tools taking turns, as these runs are short and the machine shared.
	best := func(d *time.Duration, x time.Duration) {
		if *d == 0 || x < *d {
			*d = x
		}
	}
	var uN, rN, uC, rC time.Duration
	var rssN, rssC int64
	var outN, outC string
	var nc int
	for round := 0; round < 3; round++ {
		t, err := timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/")
		if err != nil {
			return err
		}
		best(&rN, t)
		t, rss, out, err := ours("save", data, vol)
		if err != nil {
			return err
		}
		best(&uN, t)
		rssN, outN = max(rssN, rss), out
		if nc, err = change(vol, round+1); err != nil {
			return err
		}
		if t, err = timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/"); err != nil {
			return err
		}
		best(&rC, t)
		if t, rss, out, err = ours("save", data, vol); err != nil {
			return err
		}
		best(&uC, t)
		rssC, outC = max(rssC, rss), out
	}
	rows = append(rows, row{"save, nothing changed", uN, rN, 0, 5, rssN, outN})
	rows = append(rows, row{fmt.Sprintf("save, 1%% changed (%d files)", nc), uC, rC, 0, 5, rssC, outC})

	// Restore into an empty tmpfs folder.
	rsBack, cpBack, usBack := filepath.Join(back, "rsync-back"), filepath.Join(back, "cp-back"), filepath.Join(back, "us-back")
	os.Mkdir(usBack, 0o755)
	tR, err = timed(back, "rsync", "-a", "--delete", rs+"/", rsBack+"/")
	if err != nil {
		return err
	}
	tC, err = timed(back, "cp", "-a", cpDst, cpBack)
	if err != nil {
		return err
	}
	tU, rss, out, err = ours("restore", data, usBack)
	if err != nil {
		return err
	}
	rows = append(rows, row{"restore", tU, tR, tC, 1.5, rss, out})
	want, err := mirror.DigestTree(vol, true)
	if err != nil {
		return err
	}
	got, err := mirror.DigestTree(usBack, true)
	if err != nil {
		return err
	}
	if d := want.Diff(got, 3); len(d) > 0 {
		return fmt.Errorf("the restored tree differs from the source at %v", d)
	}

	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "operation\trambar\trsync -a --delete\tcp -a\tvs rsync\tvs cp\ttarget vs rsync\tmax RSS\tcopied (files bytes)\t")
	ok := true
	for _, r := range rows {
		cp, vsCp := "-", "-"
		if r.cp > 0 {
			cp = r.cp.Round(time.Millisecond).String()
			vsCp = fmt.Sprintf("%.1fx", r.cp.Seconds()/r.us.Seconds())
		}
		ratio := r.rsync.Seconds() / r.us.Seconds()
		mark := "ok"
		if ratio < r.target {
			mark, ok = "MISSED", false
		}
		if r.rss > 100<<20 {
			mark, ok = "RSS OVER 100 MB", false
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1fx\t%s\t%.1fx %s\t%s\t%s\t\n", r.name, r.us.Round(time.Millisecond),
			r.rsync.Round(time.Millisecond), cp, ratio, vsCp, r.target, mark, ramdisk.Size(r.rss).Short(), r.note)
	}
	tw.Flush()
	fmt.Println("\ntimes include process start and a final syncfs of the destination for every tool (mirror flushes before it commits).")
	if !ok {
		return fmt.Errorf("a target was missed")
	}
	return nil
}
