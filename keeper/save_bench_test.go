//go:build linux

package keeper

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rambar/ramdisk"
)

// BenchmarkSaveUnchanged saves a 50,000-file tmpfs tree with nothing
// changed (make bench-mirror compares the whole thing with rsync).
func BenchmarkSaveUnchanged(b *testing.B) { benchSave(b, false) }

// BenchmarkSaveOnePercent saves the same tree with 500 files rewritten.
func BenchmarkSaveOnePercent(b *testing.B) { benchSave(b, true) }

func benchSave(b *testing.B, change bool) {
	dir := b.TempDir()
	vol := filepath.Join(dir, "vol")
	os.Mkdir(vol, 0o755)
	if err := mountForBench(vol); err != nil {
		b.Fatal(err)
	}
	defer unmountForBench(vol)
	for i := 0; i < 50000; i++ {
		p := filepath.Join(vol, fmt.Sprintf("d%d/e%d/f%d", i%400, i%9, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	k := NewKeeper(filepath.Join(dir, "data"))
	k.Setup("B", Options{Mode: ramdisk.Keep})
	v := ramdisk.Volume{Name: "B", MountPoint: vol}
	if _, err := k.Save(context.Background(), v, SaveOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if change {
			b.StopTimer()
			for j := i % 100; j < 50000; j += 100 {
				os.WriteFile(filepath.Join(vol, fmt.Sprintf("d%d/e%d/f%d", j%400, j%9, j)), []byte(fmt.Sprint(i)), 0o644)
			}
			b.StartTimer()
		}
		r, err := k.Save(context.Background(), v, SaveOptions{})
		if err != nil || r.Unchanged == change {
			b.Fatal(r, err)
		}
	}
}
