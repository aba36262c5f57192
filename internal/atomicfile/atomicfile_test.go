package atomicfile

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.plist")
	for _, data := range []string{"one", "two, longer"} {
		if err := WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		if string(got) != data {
			t.Errorf("read %q, want %q", got, data)
		}
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "no", "dir"), nil, 0o600); err == nil {
		t.Error("write into a missing folder succeeded")
	}
}

// TestKillDuringWrite kills a child that rewrites one file in a loop, at
// random moments, and checks the file is always one whole version.
func TestKillDuringWrite(t *testing.T) {
	if os.Getenv("ATOMICFILE_CHILD") != "" {
		p := os.Getenv("ATOMICFILE_CHILD")
		for i := 0; ; i++ {
			v := byte('a' + i%2)
			if err := WriteFile(p, bytes.Repeat([]byte{v}, 1<<20), 0o600); err != nil {
				os.Exit(3)
			}
		}
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(p, bytes.Repeat([]byte{'a'}, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 20; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringWrite$")
		cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+p)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+rng.Intn(40)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1<<20 || (!bytes.Equal(got, bytes.Repeat([]byte{'a'}, 1<<20)) && !bytes.Equal(got, bytes.Repeat([]byte{'b'}, 1<<20))) {
			t.Fatalf("kill %d: file is not one whole version (len %d, first %q)", i, len(got), got[:1])
		}
	}
}

func TestWriteFastReplacesWithoutLeftovers(t *testing.T) {
	p := filepath.Join(t.TempDir(), "index")
	for _, data := range []string{"one", "two, longer", ""} {
		if err := WriteFast(p, []byte(data), 0o640); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != data {
			t.Errorf("read %q, want %q", got, data)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", st.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
	if err := WriteFast(filepath.Join(p, "sub"), []byte("x"), 0o600); err == nil {
		t.Error("WriteFast under a file succeeded")
	}
}

// TestTempWriter: a temporary file's name tells its writer, and nothing
// else is taken for one.
func TestTempWriter(t *testing.T) {
	dir := t.TempDir()
	var seen string
	WriteFrom(filepath.Join(dir, "r.json"), 0o600, false, func(w io.Writer) error {
		ents, _ := os.ReadDir(dir)
		seen = ents[0].Name()
		return nil
	})
	if pid, ok := TempWriter(seen); !ok || pid != os.Getpid() {
		t.Errorf("TempWriter(%q) = %d, %v; want this process", seen, pid, ok)
	}
	for _, tc := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{".r.json.tmp-4242-123", 4242, true},
		{".a.b.tmp-7-x", 7, true},
		{".my.tmp-5-settings.plist.tmp-4242-123", 4242, true}, // a base with ".tmp-" of its own
		{"r.json.tmp-4242-123", 0, false},                     // not hidden
		{".r.json.tmp-123", 0, false},                         // an older RAMBar's: no writer
		{".r.json.tmp--1-2", 0, false},
		{".r.json.tmp-0-2", 0, false},
		{".r.json", 0, false},
	} {
		pid, ok := TempWriter(tc.name)
		if ok != tc.ok || ok && pid != tc.pid {
			t.Errorf("TempWriter(%q) = %d, %v; want %d, %v", tc.name, pid, ok, tc.pid, tc.ok)
		}
	}
}
