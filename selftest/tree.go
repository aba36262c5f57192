package selftest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// testTree is the folder a self-test writes on its disks: small files of
// many sizes in nested folders, an empty file, a symlink, and one large
// file of large bytes.
const testTree = "rambar-selftest"

// writeTree writes the test tree below dir and returns what it wrote (the
// size and digest of each file, each link's target) and the bytes written.
// Its contents come from seed.
func writeTree(dir string, large int64, seed uint64) (map[string]entry, int64, error) {
	root := filepath.Join(dir, testTree)
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	wrote := map[string]entry{}
	var total int64
	write := func(rel string, size int64) error {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		h := sha256.New()
		buf := make([]byte, 64*1024)
		for left := size; left > 0; {
			n := min(left, int64(len(buf)))
			for i := range buf[:n] {
				buf[i] = byte(rng.Uint32())
			}
			h.Write(buf[:n])
			if _, err := f.Write(buf[:n]); err != nil {
				f.Close()
				return err
			}
			left -= n
		}
		total += size
		wrote[rel] = entry{Size: size, Digest: hex.EncodeToString(h.Sum(nil))}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	for i := range 40 {
		if err := write(filepath.Join("src", fmt.Sprintf("pkg%d", i%5), fmt.Sprintf("file%02d.txt", i)), int64(rng.IntN(20000))); err != nil {
			return wrote, total, fmt.Errorf("write the test files: %w", err)
		}
	}
	if err := write("empty", 0); err != nil {
		return wrote, total, fmt.Errorf("write the test files: %w", err)
	}
	if large > 0 {
		if err := write("large.bin", large); err != nil {
			return wrote, total, fmt.Errorf("write the test files: %w", err)
		}
	}
	target := filepath.Join("src", "pkg0", "file00.txt")
	if err := os.Symlink(target, filepath.Join(root, "link")); err != nil {
		return wrote, total, fmt.Errorf("write the test files: %w", err)
	}
	wrote["link"] = entry{Link: target}
	return wrote, total, nil
}

// entry is one path of a tree as compared: its kind and permissions, its
// size and contents' digest, or a link's target.
type entry struct {
	Mode   fs.FileMode
	Size   int64
	Digest string
	Link   string
}

// digestTree reads the test tree below dir: every path with what is
// compared of it.
func digestTree(dir string) (map[string]entry, error) {
	root := filepath.Join(dir, testTree)
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{Mode: info.Mode() & (fs.ModeType | fs.ModePerm)}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			e.Link, err = os.Readlink(p)
		case d.Type().IsRegular():
			e.Size = info.Size()
			e.Digest, err = fileDigest(p)
		}
		out[rel] = e
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the test files back: %w", err)
	}
	return out, nil
}

func fileDigest(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// diffTrees names the paths that differ between two digests (at most a
// few, then how many more).
func diffTrees(want, got map[string]entry) []string {
	var bad []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			bad = append(bad, p+" is missing")
		case g != w:
			bad = append(bad, fmt.Sprintf("%s differs (%v %d %.8s %q, want %v %d %.8s %q)", p, g.Mode, g.Size, g.Digest, g.Link, w.Mode, w.Size, w.Digest, w.Link))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			bad = append(bad, p+" appeared")
		}
	}
	sort.Strings(bad)
	if len(bad) > 5 {
		bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
	}
	return bad
}

// sameContents compares the files and links below dir with what
// writeTree wrote (sizes, digests, targets), in words ("" when equal).
func sameContents(dir string, wrote map[string]entry) string {
	got, err := digestTree(dir)
	if err != nil {
		return err.Error()
	}
	seen := map[string]entry{}
	for p := range wrote {
		g := got[p]
		seen[p] = entry{Size: g.Size, Digest: g.Digest, Link: g.Link}
		if _, ok := got[p]; !ok {
			delete(seen, p)
		}
	}
	return strings.Join(diffTrees(wrote, seen), "; ")
}

// sameTree compares the tree below dir with want, modes included, in
// words ("" when equal).
func sameTree(dir string, want map[string]entry) string {
	got, err := digestTree(dir)
	if err != nil {
		return err.Error()
	}
	return strings.Join(diffTrees(want, got), "; ")
}
