//go:build linux

package main

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The pnpm tree is seed 004's workload in a generated tree of the same
// shape (issue 36): a monorepo whose node_modules are pnpm's, with most
// names hard links into one content-addressed store folder on the same
// disk, about 480,000 paths in 60,000 folders.
const (
	// pnpmStoreFiles is how many contents the store holds, in 256
	// folders named by the first byte of their hash.
	pnpmStoreFiles = 180000
	// pnpmPackages is how many packages node_modules/.pnpm holds.
	pnpmPackages = 5800
	// pnpmDirsPer and pnpmLinksPer are each package's folders (besides
	// its three of pnpm's layout) and the names in them, each a hard link
	// to a file of the store: most to a file of its own (two names, as
	// pnpm's store and one project make), one in pnpmShared to one of
	// pnpmPopular files many packages hold (a license, a common
	// package.json).
	pnpmDirsPer, pnpmLinksPer = 7, 32
	pnpmShared, pnpmPopular   = 10, 500
	// pnpmSources and pnpmSourceDirs are the workspace's own files (not
	// links) and their folders.
	pnpmSources, pnpmSourceDirs = 50000, 1600
)

// pnpmCounts is what a pnpm tree holds: its paths (folders included),
// folders, hard-linked names in node_modules and bytes; sample is one of
// the workspace's own files (a path), for the figures that change one.
type pnpmCounts struct {
	paths, folders, links int
	bytes                 int64
	sample                string
}

// generatePnpm writes the pnpm tree at root: the store, the workspace's
// sources, and node_modules (pnpmInstall).
func generatePnpm(root string) (pnpmCounts, error) {
	var c pnpmCounts
	r := rand.New(rand.NewSource(4))
	pool := make([]byte, 1<<20)
	r.Read(pool)
	write := func(p string) error {
		size := int(64 * math.Pow(256, r.Float64()))
		off := r.Intn(len(pool) - size)
		c.paths++
		c.bytes += int64(size)
		return os.WriteFile(p, pool[off:off+size], 0o644)
	}
	for b := range 256 {
		if err := os.MkdirAll(filepath.Join(root, pnpmStoreDir(b)), 0o755); err != nil {
			return c, err
		}
		c.folders++
	}
	for i := range pnpmStoreFiles {
		if err := write(filepath.Join(root, pnpmStorePath(i))); err != nil {
			return c, err
		}
	}
	dirs := []string{"packages"}
	for i := range pnpmSources {
		if i%(pnpmSources/pnpmSourceDirs) == 0 {
			parent := dirs[r.Intn(len(dirs))]
			if strings.Count(parent, "/") > 6 || len(dirs) > 1 && r.Intn(4) == 0 {
				parent = dirs[r.Intn(min(len(dirs), 40))]
			}
			d := filepath.Join(parent, fmt.Sprintf("src%d", len(dirs)))
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				return c, err
			}
			dirs = append(dirs, d)
			c.folders++
		}
		p := filepath.Join(root, dirs[len(dirs)-1-r.Intn(min(len(dirs), 6))], fmt.Sprintf("s%d.ts", i))
		if err := write(p); err != nil {
			return c, err
		}
		if i == pnpmSources/2 {
			c.sample = p
		}
	}
	ic, err := pnpmInstall(root)
	c.paths += ic.paths + c.folders
	c.folders += ic.folders
	c.links = ic.links
	return c, err
}

// pnpmStoreDir is the store's folder for first byte b.
func pnpmStoreDir(b int) string { return filepath.Join("store", "v3", "files", fmt.Sprintf("%02x", b)) }

// pnpmStorePath is the store's file i.
func pnpmStorePath(i int) string {
	return filepath.Join(pnpmStoreDir(i*131%256), fmt.Sprintf("%08x%06d", uint32(i)*2654435761, i))
}

// pnpmInstall makes node_modules as pnpm install does, the same each
// time: for each package node_modules/.pnpm/NAME@VERSION/node_modules/NAME
// with its folders, each file a hard link to one of the store, and a
// symbolic link node_modules/NAME to it. It returns the paths it made
// (folders included), the folders and the hard links.
func pnpmInstall(root string) (pnpmCounts, error) {
	var c pnpmCounts
	nm := filepath.Join(root, "node_modules")
	if err := os.MkdirAll(filepath.Join(nm, ".pnpm"), 0o755); err != nil {
		return c, err
	}
	c.folders += 2
	subs := []string{"lib", "dist", "types", "lib/util", "dist/esm", "dist/cjs", "src", "lib/internal", "test"}
	for p := range pnpmPackages {
		name := fmt.Sprintf("pkg%d", p)
		pkg := filepath.Join(nm, ".pnpm", fmt.Sprintf("%s@1.%d.0", name, p%7), "node_modules", name)
		dirs := []string{pkg}
		for _, s := range subs[:pnpmDirsPer] {
			dirs = append(dirs, filepath.Join(pkg, s))
		}
		for _, d := range dirs {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return c, err
			}
		}
		c.folders += len(dirs) + 2
		for j := range pnpmLinksPer {
			s := (p*pnpmLinksPer + j) % pnpmStoreFiles
			if s%pnpmShared == 0 {
				s = s / pnpmShared % pnpmPopular
			}
			d := dirs[j%len(dirs)]
			if err := os.Link(filepath.Join(root, pnpmStorePath(s)), filepath.Join(d, fmt.Sprintf("f%d.js", j))); err != nil {
				return c, err
			}
			c.links++
		}
		if err := os.Symlink(filepath.Join(".pnpm", fmt.Sprintf("%s@1.%d.0", name, p%7), "node_modules", name), filepath.Join(nm, name)); err != nil {
			return c, err
		}
	}
	c.paths = c.folders + c.links + pnpmPackages
	return c, nil
}

// pnpmClean removes node_modules wholesale, as git clean -fdX does.
func pnpmClean(root string) error { return os.RemoveAll(filepath.Join(root, "node_modules")) }

// pnpmChild is a child process's generation of the pnpm tree at root
// (op pnpm), printing its counts for pnpmGenerate, or one churn of it
// (op churn): node_modules removed, then made again, printing how long
// each took, in nanoseconds. The user's tools run apart from RAMBar's, so
// that the memory they leave behind is not counted as the following's.
func pnpmChild(op, root string) int {
	var err error
	switch op {
	case "pnpm":
		var c pnpmCounts
		if c, err = generatePnpm(root); err == nil {
			fmt.Printf("%d %d %d %d %s\n", c.paths, c.folders, c.links, c.bytes, c.sample)
		}
	case "churn":
		t0 := time.Now()
		if err = pnpmClean(root); err == nil {
			t1 := time.Now()
			if _, err = pnpmInstall(root); err == nil {
				fmt.Printf("%d %d\n", t1.Sub(t0), time.Since(t1))
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// pnpmRun runs pnpmChild's op on root in a child process and returns what
// it printed.
func pnpmRun(op, root string) (string, error) {
	cmd := exec.Command("/proc/self/exe", "child", op, "-", root)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", op, root, err)
	}
	return string(out), nil
}

// pnpmGenerate writes the pnpm tree at root in a child process.
func pnpmGenerate(root string) (pnpmCounts, error) {
	var c pnpmCounts
	out, err := pnpmRun("pnpm", root)
	if err != nil {
		return c, err
	}
	if _, err := fmt.Sscanf(out, "%d %d %d %d %s", &c.paths, &c.folders, &c.links, &c.bytes, &c.sample); err != nil {
		return c, fmt.Errorf("pnpm %s: reading %q: %w", root, out, err)
	}
	return c, nil
}

// pnpmChurnOnce removes and makes again root's node_modules in a child
// process, and returns how long each took.
func pnpmChurnOnce(root string) (clean, install time.Duration, err error) {
	out, err := pnpmRun("churn", root)
	if err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Sscanf(out, "%d %d", &clean, &install); err != nil {
		return 0, 0, fmt.Errorf("churn %s: reading %q: %w", root, out, err)
	}
	return clean, install, nil
}
