package tree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Digest describes a tree by content: one line per path with its type,
// permissions, modification time, size, link target, extended attributes
// and the SHA-256 of its bytes. Two trees are the same when their digests are.
type Digest map[string]string

// Files counts the regular files.
func (d Digest) Files() int {
	n := 0
	for _, v := range d {
		if strings.HasPrefix(v, "f ") {
			n++
		}
	}
	return n
}

// TreeSum names a tree's content in a few bytes: the SHA-256 of its
// digest, and how many entries and files it holds. Two trees with the same
// sum hold the same content.
type TreeSum struct {
	Sum     string `json:"sha256"`
	Entries int    `json:"entries"`
	Files   int    `json:"files"`
}

// Sum is d's TreeSum: the SHA-256 of its paths and lines, sorted by path.
func (d Digest) Sum() TreeSum {
	paths := make([]string, 0, len(d))
	for p := range d {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%d:%s%d:%s", len(p), p, len(d[p]), d[p])
	}
	return TreeSum{Sum: hex.EncodeToString(h.Sum(nil)), Entries: len(d), Files: d.Files()}
}

// Diff lists the paths that differ between d and o, sorted (at most max).
func (d Digest) Diff(o Digest, max int) []string {
	var out []string
	for p, v := range d {
		if o[p] != v {
			out = append(out, p)
		}
	}
	for p := range o {
		if _, ok := d[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// DigestOf reads every file under root (skipping the marker and macOS
// volume bookkeeping at the root). withTimes includes modification times
// (folders' times change when anything is added, so callers comparing live
// trees may leave them out).
func DigestOf(root string, withTimes bool) (Digest, error) {
	items, err := Scan(root)
	if err != nil {
		return nil, err
	}
	d := make(Digest, len(items))
	var mu sync.Mutex
	err = Pool(len(items), Workers, func(i int) error {
		e, err := EntryOf(root, items, i)
		if err != nil {
			return err
		}
		sum := ""
		kind := map[Kind]string{KindFile: "f", KindDir: "d", KindSymlink: "l", KindFIFO: "p"}[e.Kind]
		if e.Kind == KindFile {
			f, err := os.Open(filepath.Join(root, filepath.FromSlash(e.Path)))
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("read %s: %w", e.Path, err)
			}
			sum = hex.EncodeToString(h.Sum(nil))
		}
		var xs []string
		for k, v := range e.Xattr {
			xs = append(xs, k+"="+hex.EncodeToString(v))
		}
		sort.Strings(xs)
		mt := "0"
		if withTimes && e.Path != "." {
			mt = nsString(e.MTime)
		}
		line := fmt.Sprintf("%s %o %s %d %q %s %s", kind, e.Mode, mt, e.Size, e.Link, strings.Join(xs, ","), sum)
		mu.Lock()
		d[e.Path] = line
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("digest %s: %w", root, err)
	}
	return d, nil
}

// nsString is t in nanoseconds since the epoch, in decimal, for any t.
func nsString(t unix.Timespec) string {
	n := new(big.Int).Mul(big.NewInt(int64(t.Sec)), big.NewInt(1e9))
	return n.Add(n, big.NewInt(int64(t.Nsec))).String()
}
