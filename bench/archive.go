package bench

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"
)

// generateArchive returns an uncompressed tar of files files totalling about
// total bytes, shaped like a language's standard library: many small
// Python-like text files of varied size in nested package folders. The same
// arguments always give the same bytes.
func generateArchive(files int, total int64) []byte {
	rng := rand.New(rand.NewPCG(2871, 69))
	// Sizes: log-normal like a real standard library (most files a few KB,
	// a few over 100 KB), scaled to the total.
	w := make([]float64, files)
	var sum float64
	for i := range w {
		w[i] = math.Exp(1.1 * rng.NormFloat64())
		sum += w[i]
	}
	text := pythonText(rng, 1<<20)
	var buf bytes.Buffer
	buf.Grow(int(total) + files*1024 + 1<<20)
	tw := tar.NewWriter(&buf)
	mtime := time.Date(2026, 10, 10, 12, 0, 0, 0, time.UTC)
	root := "lib/python3.14/"
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: root, Mode: 0o755, ModTime: mtime})
	var dir string
	perDir := 0
	pkg := 0
	for i := 0; i < files; i++ {
		if perDir == 0 {
			// A new package every 5 to 40 files, nested 0 to 2 levels under
			// the one before or at the top.
			perDir = 5 + rng.IntN(36)
			pkg++
			depth := rng.IntN(3)
			if depth == 0 || dir == "" || strings.Count(dir, "/") > 4 {
				dir = fmt.Sprintf("%spkg%03d/", root, pkg)
			} else {
				dir = fmt.Sprintf("%ssub%03d/", dir, pkg)
			}
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir, Mode: 0o755, ModTime: mtime})
		}
		perDir--
		size := int(float64(total) * w[i] / sum)
		if size < 64 {
			size = 64
		}
		name := fmt.Sprintf("%smod_%04d.py", dir, i)
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(size), ModTime: mtime})
		off := rng.IntN(len(text))
		for left := size; left > 0; {
			n := min(left, len(text)-off)
			tw.Write(text[off : off+n])
			left -= n
			off = 0
		}
	}
	tw.Close()
	return buf.Bytes()
}

// pythonText is n bytes of Python-looking source.
func pythonText(rng *rand.Rand, n int) []byte {
	words := []string{"self", "value", "result", "name", "path", "data", "items", "key", "buffer", "count", "index", "parser", "node", "token", "stream"}
	var b bytes.Buffer
	for b.Len() < n {
		a, c := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
		switch rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "\ndef %s_%d(%s, %s=None):\n    \"\"\"Return the %s of %s.\"\"\"\n", a, rng.IntN(1000), "self", c, c, a)
		case 1:
			fmt.Fprintf(&b, "    if %s is None:\n        raise ValueError(%q)\n", c, a+" must be set")
		case 2:
			fmt.Fprintf(&b, "    for %s in %s.%s:\n        %s += %d\n", a, "self", c, c, rng.IntN(100))
		case 3:
			fmt.Fprintf(&b, "class %s%d(object):\n    __slots__ = (%q, %q)\n", strings.ToUpper(a[:1])+a[1:], rng.IntN(100), a, c)
		case 4:
			fmt.Fprintf(&b, "    # %s the %s before the %s is read\n", a, c, a)
		default:
			fmt.Fprintf(&b, "    return %s.%s(%s)\n", "self", a, c)
		}
	}
	return b.Bytes()[:n]
}

// extract unpacks a tar archive into dir the way tar -xf does for a normal
// user (folders and regular files with their modes and modification times,
// folders' times set last; no owners, no syncs) and returns the number of
// files. Names that would leave dir are refused.
func extract(ctx context.Context, archive []byte, dir string) (int, error) {
	tr := tar.NewReader(bytes.NewReader(archive))
	files := 0
	type dirTime struct {
		path string
		t    time.Time
	}
	var dirs []dirTime
	for {
		h, err := tr.Next()
		if err == io.EOF {
			for i := len(dirs) - 1; i >= 0; i-- {
				if err := os.Chtimes(dirs[i].path, time.Time{}, dirs[i].t); err != nil {
					return files, fmt.Errorf("untar: %w", err)
				}
			}
			return files, nil
		}
		if err != nil {
			return files, fmt.Errorf("untar: %w", err)
		}
		if !filepath.IsLocal(h.Name) {
			return files, fmt.Errorf("untar: %q leaves the target folder", h.Name)
		}
		p := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, os.FileMode(h.Mode)&0o777|0o700); err != nil {
				return files, fmt.Errorf("untar: %w", err)
			}
			dirs = append(dirs, dirTime{p, h.ModTime})
		case tar.TypeReg:
			if files%128 == 0 && ctx.Err() != nil {
				return files, ctx.Err()
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, os.FileMode(h.Mode)&0o777)
			if err != nil {
				return files, fmt.Errorf("untar: %w", err)
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = os.Chtimes(p, time.Time{}, h.ModTime)
			}
			if err != nil {
				return files, fmt.Errorf("untar %s: %w", h.Name, err)
			}
			files++
		}
	}
}

// uintptrOf is the address of b's first byte, for alignment.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
