package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rambar/internal/testproc"
)

// TestNamesOnBothSystems: on Linux "Work" and "work" are two disks with
// two records; on macOS one disk with one record. The rule is decided by
// NamesOf alone, so both systems' are tested here.
func TestNamesOnBothSystems(t *testing.T) {
	for _, c := range []struct {
		goos       string
		same       bool
		keyA, keyB string
	}{
		{"linux", false, "%57ork", "work"},
		{"darwin", true, "work", "work"},
	} {
		t.Run(c.goos, func(t *testing.T) {
			n := NamesOf(c.goos)
			if got := n.Same("Work", "work"); got != c.same {
				t.Errorf("Same(Work, work) = %v, want %v", got, c.same)
			}
			if !n.Same("Work", "Work") || n.Same("Work", "Wörk") {
				t.Error("Same is wrong for equal or different names")
			}
			if a, b := n.Key("Work"), n.Key("work"); a != c.keyA || b != c.keyB {
				t.Errorf("keys %q %q, want %q %q", a, b, c.keyA, c.keyB)
			}
			// Two disks by the rule, two files; one disk, one file.
			k := Kind{Dir: t.TempDir(), Names: n}
			type rec struct {
				Name string `json:"name"`
				N    int    `json:"n"`
			}
			if err := k.Write("Work", rec{"Work", 1}); err != nil {
				t.Fatal(err)
			}
			if err := k.Write("work", rec{"work", 2}); err != nil {
				t.Fatal(err)
			}
			var r rec
			found, ok := k.Load("Work", &r)
			want := 1
			if c.same {
				want = 2
			}
			if !found || !ok || r.N != want {
				t.Errorf("Work's record: found %v ok %v n %d, want n %d", found, ok, r.N, want)
			}
			k.Remove("work")
			if found, _ := k.Load("Work", &r); found != !c.same {
				t.Errorf("after work's record went, Work's found = %v, want %v", found, !c.same)
			}
		})
	}
}

// TestKeysOfBothSchemes: a record written under the other rule's key (by
// an older RAMBar) is read when it is this disk's, or damaged; never when
// it is another's; and it goes when the record is written again.
func TestKeysOfBothSchemes(t *testing.T) {
	k := Kind{Dir: t.TempDir(), Names: NamesOf("linux")}
	old := filepath.Join(k.Dir, "work.json")
	for _, c := range []struct {
		body        string
		work, lower bool
	}{
		{`{"name":"Work"}`, true, false},
		{`{"name":"work"}`, false, true},
		{`{"name":`, true, true},
	} {
		os.WriteFile(old, []byte(c.body), 0o600)
		if _, found := k.Read("Work"); found != c.work {
			t.Errorf("%s: Work found %v, want %v", c.body, found, c.work)
		}
		if _, found := k.Read("work"); found != c.lower {
			t.Errorf("%s: work found %v, want %v", c.body, found, c.lower)
		}
	}
	os.WriteFile(old, []byte(`{"name":"Work"}`), 0o600)
	if err := k.Write("Work", map[string]string{"name": "Work"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the older record is still there: %v", err)
	}
}

// TestBoundedReads: a record over its bound is refused, not cut; a
// symbolic link is not followed.
func TestBoundedReads(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, []byte(strings.Repeat("x", 100)), 0o600)
	if _, err := ReadFile(big, 99); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v, want ErrTooLarge", err)
	}
	if b, err := ReadFile(big, 100); err != nil || len(b) != 100 {
		t.Errorf("at the bound: %d bytes, %v", len(b), err)
	}
	link := filepath.Join(dir, "link.json")
	os.Symlink(big, link)
	if _, err := ReadFile(link, 1000); err == nil {
		t.Error("a symbolic link was followed")
	}
	k := Kind{Dir: dir, Names: Platform, Limit: 50}
	os.WriteFile(filepath.Join(dir, "d.json"), []byte(`{"name":"d","x":"`+strings.Repeat("y", 60)+`"}`), 0o600)
	if b, found := k.Read("d"); !found || b != nil {
		t.Errorf("a record over the bound: found %v, b %q; want found, unreadable", found, b)
	}
}

// TestLogPending: a step journal lists the records whose step is open.
func TestLogPending(t *testing.T) {
	type rec struct{ Name, Step string }
	var heard []string
	l := Log[rec]{Kind: Kind{Dir: t.TempDir(), Names: Platform}, Op: "test",
		Key: func(r *rec) string { return r.Name }, Step: func(r *rec) string { return r.Step },
		Heard: func(s string) { heard = append(heard, s) }}
	l.Note(rec{"a", "one"})
	l.Note(rec{"b", "done"})
	l.Note(rec{"a", "two"})
	ps := l.Pending(func(r *rec) bool { return r.Step != "done" })
	if len(ps) != 1 || ps[0].Key != "a" || ps[0].Step != "two" || ps[0].Op != "test" {
		t.Errorf("pending %+v", ps)
	}
	if strings.Join(heard, ",") != "one,done,two" {
		t.Errorf("heard %v", heard)
	}
	l.Done("a")
	if _, found, _ := l.Get("a"); found {
		t.Error("a's record is still there")
	}
}

// TestLockWaitAndCancel: a held lock is waited for until the wait passes
// (ErrLocked) or the context ends (its error); freed, it is taken.
func TestLockWaitAndCancel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "locks", "x.lock")
	_, release, err := Lock(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Lock(context.Background(), p, 120*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Errorf("held: %v, want ErrLocked", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Lock(ctx, p, -1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	release()
	_, release2, err := Lock(context.Background(), p, 0)
	if err != nil {
		t.Fatalf("free: %v", err)
	}
	release2()
}

// TestProcAlive: this process is alive by id and start time; a record of
// a process that started at another time is not (its id was reused).
func TestProcAlive(t *testing.T) {
	me := Self()
	if !me.Alive() {
		t.Fatal("this process is not alive")
	}
	if me.Start == 0 {
		t.Fatal("no start time for this process")
	}
	if (Proc{PID: me.PID, Start: me.Start + 1}).Alive() {
		t.Error("a process with this id that started at another time is alive")
	}
	if (Proc{PID: -1}).Alive() {
		t.Error("pid -1 is alive")
	}
}

// TestEachRemovesWhatAKilledWriterLeft: a record's temporary file whose
// writer is gone (kill -9 between write and rename) is removed when the
// folder is listed; one being written by a live process, and the records,
// stay.
func TestEachRemovesWhatAKilledWriterLeft(t *testing.T) {
	k := Kind{Dir: t.TempDir(), Names: Platform}
	if err := k.Write("a", map[string]string{"name": "a"}); err != nil {
		t.Fatal(err)
	}
	gone := testproc.Gone(t)
	dead := fmt.Sprintf(".a.json.tmp-%d-1", gone)
	live := fmt.Sprintf(".a.json.tmp-%d-2", os.Getpid())
	older := ".a.json.tmp-3" // an older RAMBar's, whose writer is unknown
	for _, n := range []string{dead, live, older} {
		os.WriteFile(filepath.Join(k.Dir, n), []byte("{"), 0o600)
	}
	var listed []string
	k.Each(func(p string, _ []byte) { listed = append(listed, filepath.Base(p)) })
	if !slices.Equal(listed, []string{k.Names.Key("a") + ".json"}) {
		t.Errorf("listed %v", listed)
	}
	var left []string
	ents, _ := os.ReadDir(k.Dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	want := []string{live, older, k.Names.Key("a") + ".json"}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// TestWriteSweepsWhatAKilledWriterOfItLeft: a write of a record removes
// the copies of that file writers killed before their rename left (a
// folder no one lists is swept too); another file's, and a live writer's,
// stay.
func TestWriteSweepsWhatAKilledWriterOfItLeft(t *testing.T) {
	dir := t.TempDir()
	check := testproc.KilledWrites(t, dir, "r.json", "s.json")
	if err := Write(filepath.Join(dir, "r.json"), []byte("{}"), false); err != nil {
		t.Fatal(err)
	}
	check()
	if _, err := os.Lstat(filepath.Join(dir, "r.json")); err != nil {
		t.Errorf("r.json: %v", err)
	}
}
