//go:build linux

package main

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"rambar/keeper"
)

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

// generateLarge writes files of 256 MiB (the last one smaller) of random
// bytes, total bytes in all.
func generateLarge(root string, total int64) (int64, error) {
	r := rand.New(rand.NewSource(2))
	buf := make([]byte, 4<<20)
	var done int64
	for i := 0; done < total; i++ {
		f, err := os.Create(filepath.Join(root, fmt.Sprintf("large%d.bin", i)))
		if err != nil {
			return 0, err
		}
		for n := int64(0); n < 256<<20 && done < total; {
			r.Read(buf)
			w := min(int64(len(buf)), total-done)
			if _, err := f.Write(buf[:w]); err != nil {
				f.Close()
				return 0, err
			}
			n += w
			done += w
		}
		if err := f.Close(); err != nil {
			return 0, err
		}
	}
	return done, nil
}

// generateTiny writes n files of 20 bytes each, 1,000 to a folder.
func generateTiny(root string, n int) (int64, error) {
	for i := 0; i < n; i++ {
		d := filepath.Join(root, fmt.Sprintf("d%03d", i/1000))
		if i%1000 == 0 {
			if err := os.Mkdir(d, 0o755); err != nil {
				return 0, err
			}
		}
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("t%06d", i)), []byte(fmt.Sprintf("tiny file %9d\n", i)), 0o644); err != nil {
			return 0, err
		}
	}
	return int64(n) * 20, nil
}

// generateSparse writes one file of size bytes holding 4 KiB of data in
// its middle, the rest holes.
func generateSparse(root string, size int64) (int64, error) {
	f, err := os.Create(filepath.Join(root, "sparse.img"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return 0, err
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("data", 1024)), size/2); err != nil {
		return 0, err
	}
	return 4096, f.Close()
}

// change rewrites every hundredth file (1% of the tree) in place, a
// different hundredth each round.
func change(root string, round int) (int, error) {
	n := 0
	i := 0
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() || strings.HasSuffix(p, keeper.MarkerName) {
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
