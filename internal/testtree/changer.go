package testtree

import (
	"fmt"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Changer makes random changes to a tree: what users' programs do to a
// disk between two saves (files made, rewritten, truncated, removed,
// renamed across folders, hard-linked, chmod'ed, given xattrs; folders
// made, moved, removed, moved out of the tree and back; symlinks, FIFOs,
// sockets).
type Changer struct {
	root string
	r    *rand.Rand
	n    int
}

// NewChanger changes the tree at root, as seed says.
func NewChanger(root string, seed int64) *Changer {
	return &Changer{root: root, r: rand.New(rand.NewSource(seed))}
}

// Intn is a random number in [0, n) of the changer's.
func (c *Changer) Intn(n int) int { return c.r.Intn(n) }

// Seed picks the random changes: $RAMBAR_TEST_RANDOM, or a fixed one.
func Seed() int64 {
	if n, err := strconv.ParseInt(os.Getenv("RAMBAR_TEST_RANDOM"), 10, 64); err == nil {
		return n
	}
	return 26
}

// pick is an existing path of the tree of the kind wanted ("dir", "file"
// or "" for any), or "" when there is none; "." may be a folder.
func (c *Changer) pick(kind string) string {
	var all []string
	filepath.WalkDir(c.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(c.root, p)
		switch {
		case kind == "dir" && d.IsDir(), kind == "file" && d.Type().IsRegular(), kind == "" && rel != ".":
			all = append(all, rel)
		}
		return nil
	})
	if len(all) == 0 {
		return ""
	}
	return all[c.r.Intn(len(all))]
}

// fresh is a new name in a random folder.
func (c *Changer) fresh() string {
	c.n++
	return filepath.Join(c.pick("dir"), fmt.Sprintf("%c%d", "aB._z-"[c.r.Intn(6)], c.n))
}

// Change makes one random change, returning what it did.
func (c *Changer) Change() string {
	abs := func(rel string) string { return filepath.Join(c.root, rel) }
	switch op := c.r.Intn(16); op {
	case 0, 1, 14, 15:
		p := c.fresh()
		os.WriteFile(abs(p), []byte(strings.Repeat("x", c.r.Intn(3000))), 0o644)
		return "create " + p
	case 2:
		if p := c.pick("file"); p != "" {
			os.WriteFile(abs(p), []byte(strings.Repeat("y", c.r.Intn(5000))), 0o644)
			return "rewrite " + p
		}
	case 3:
		if p := c.pick("file"); p != "" {
			os.Truncate(abs(p), int64(c.r.Intn(100)))
			return "truncate " + p
		}
	case 4:
		p := c.fresh()
		os.Mkdir(abs(p), 0o755)
		return "mkdir " + p
	case 5:
		if p, q := c.pick(""), c.fresh(); p != "" && !strings.HasPrefix(q, p+"/") {
			os.Rename(abs(p), abs(q))
			return "rename " + p + " " + q
		}
	case 6:
		if p := c.pick("dir"); p != "." && c.r.Intn(10) == 0 {
			os.RemoveAll(abs(p))
			return "rm -rf " + p
		}
	case 7:
		if p := c.pick("file"); p != "" {
			q := c.fresh()
			os.Link(abs(p), abs(q))
			return "link " + p + " " + q
		}
	case 8:
		if p := c.pick("file"); p != "" {
			os.Chmod(abs(p), os.FileMode(0o600|c.r.Intn(0o100)))
			return "chmod " + p
		}
	case 9:
		if p := c.pick(""); p != "" {
			unix.Lsetxattr(abs(p), "user.k", []byte(fmt.Sprint(c.r.Int())), 0)
			return "xattr " + p
		}
	case 10:
		if p := c.pick("file"); p != "" {
			os.Remove(abs(p))
			return "rm " + p
		}
	case 11:
		p := c.fresh()
		os.Symlink("../t"+fmt.Sprint(c.n), abs(p))
		return "symlink " + p
	case 12:
		p := c.fresh()
		if c.r.Intn(2) == 0 {
			unix.Mkfifo(abs(p), 0o644)
			return "fifo " + p
		}
		if l, err := net.Listen("unix", abs(p)); err == nil {
			l.(*net.UnixListener).SetUnlinkOnClose(false)
			l.Close()
		}
		return "socket " + p
	case 13:
		// A folder moved out of the disk and back in, changed meanwhile.
		if p := c.pick("dir"); p != "." {
			out := c.root + ".out"
			if os.Rename(abs(p), out) == nil {
				os.WriteFile(filepath.Join(out, fmt.Sprint("away", c.n)), nil, 0o644)
				os.Rename(out, abs(p))
			}
			return "out and back " + p
		}
	}
	return "nothing"
}
