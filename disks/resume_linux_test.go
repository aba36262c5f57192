package disks

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/internal/record"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// reclaimBench is a kept disk on real tmpfs under a private mount root and
// data folder, filled with files tree makes, and the child processes that
// reclaim it.
type reclaimBench struct {
	t          *testing.T
	s          *Service
	root, data string
	exe        string
	name       string
	want       keeper.Digest
	marker     string
}

func newReclaimBench(t *testing.T, name string, fill func(dir string)) *reclaimBench {
	t.Helper()
	b := &reclaimBench{t: t, root: realRoot(t), data: t.TempDir(), name: name}
	var err error
	if b.exe, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	b.s = &Service{Engine: linux.New(run.System(), linux.WithMountRoot(b.root)), Paths: ramdisk.Paths{Data: b.data}}
	c, err := b.s.Create(context.Background(), b.request())
	if err != nil {
		t.Fatal(err)
	}
	fill(c.Volume.MountPoint)
	if b.want, err = keeper.DigestOf(c.Volume.MountPoint, true); err != nil {
		t.Fatal(err)
	}
	b.marker = keeper.MarkerOf(c.Volume.MountPoint)
	return b
}

func (b *reclaimBench) request() CreateRequest {
	return CreateRequest{Input: ramdisk.Input{Name: b.name, Size: "128M"}, Contents: keeper.Options{Mode: ramdisk.Keep}}
}

// child starts a reclaim in a child process that kills itself at killAt
// ("" never).
func (b *reclaimBench) child(killAt string) *exec.Cmd {
	cmd := exec.Command(b.exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "DISKS_CHILD=reclaim", "DISKS_NAME="+b.name, "DISKS_KILL_AT="+killAt,
		"DISKS_ROOT="+b.root, "DISKS_DATA="+b.data)
	cmd.Stdin = strings.NewReader("")
	return cmd
}

// recover does what RAMBar tells the user after a stopped reclaim (the
// leftover's advice: rambar reclaim NAME --resume) and returns how it
// ended ("" when nothing was stopped) and the disk.
func (b *reclaimBench) recover(ctx context.Context) (keeper.Resumed, ramdisk.Volume) {
	b.t.Helper()
	if len(b.s.StoppedReclaims()) == 0 {
		v, err := b.s.Find(ctx, b.name)
		if err != nil {
			b.t.Fatalf("nothing stopped, and the disk is not there: %v", err)
		}
		return "", v
	}
	how, v, err := b.s.ResumeReclaim(ctx, b.name, nil)
	if err != nil {
		b.t.Fatalf("resume: %v", err)
	}
	return how, v
}

// check compares the whole tree on v with the tree before the reclaim,
// and checks that nothing of the reclaim is left.
func (b *reclaimBench) check(v ramdisk.Volume, what string) {
	b.t.Helper()
	got, err := keeper.DigestOf(v.MountPoint, true)
	if err != nil {
		b.t.Fatal(err)
	}
	if diff := b.want.Diff(got, 5); len(diff) > 0 || len(got) != len(b.want) {
		b.t.Fatalf("%s: the disk differs at %v (%d entries, %d files; want %d, %d)", what, diff, len(got), got.Files(), len(b.want), b.want.Files())
	}
	if m := keeper.MarkerOf(v.MountPoint); m != b.marker {
		b.t.Errorf("%s: marker %q, want %q", what, m, b.marker)
	}
	if left := b.s.StoppedReclaims(); len(left) != 0 {
		b.t.Errorf("%s: staging left: %+v", what, left)
	}
	if ents, _ := os.ReadDir(filepath.Join(b.data, "reclaiming")); len(ents) != 0 {
		b.t.Errorf("%s: record left: %v", what, ents)
	}
}

// killed runs the child and checks SIGKILL ended it.
func (b *reclaimBench) killed(cmd *exec.Cmd, at string) {
	b.t.Helper()
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != -1 {
		b.t.Fatalf("%s: the child was not killed (exit %d): %s", at, code, out)
	}
}

func smallTree(n int) func(string) {
	return func(dir string) {
		for i := 0; i < n; i++ {
			p := filepath.Join(dir, fmt.Sprintf("d%d/e%d/f%04d", i%7, i%3, i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(strings.Repeat("r", 500+i%900)), 0o640)
		}
		os.WriteFile(filepath.Join(dir, "large"), []byte(strings.Repeat("L", 3<<20)), 0o600)
		os.Link(filepath.Join(dir, "large"), filepath.Join(dir, "d0", "large.link"))
		os.Symlink("../large", filepath.Join(dir, "d1", "to-large"))
		syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
	}
}

// TestReclaimKilledAtEachStepIsResumed kills a reclaiming process (SIGKILL)
// at each step of a reclaim of a kept disk on real tmpfs: once its journal
// is written and before its staging folder is made (it was left unseen,
// its journal for ever: CI's random kills found it), while copying out,
// once the copy is out, before and after the eject, once made again, while
// copying back, once copied back, and half way through removing the
// staging copy. Each time the stopped reclaim is announced, ResumeReclaim
// (or the next create, when the disk is gone) finishes or undoes it, and
// the disk then holds exactly what it held, with its marker; the staging
// copy is gone only then.
func TestReclaimKilledAtEachStepIsResumed(t *testing.T) {
	b := newReclaimBench(t, "Re claim", smallTree(300))
	ctx := context.Background()
	for _, at := range []string{keeper.ReclaimCopyingOut, "copying out-start", "copying out-end", keeper.ReclaimCopiedOut, "eject", "create",
		keeper.ReclaimMade, "copying back-start", "copying back-end", keeper.ReclaimCopiedBack, "cleanup"} {
		b.killed(b.child(at), at)
		if left := b.s.StoppedReclaims(); len(left) != 1 || left[0].Name != b.name {
			t.Fatalf("%s: stopped reclaims %+v", at, left)
		}
		if v, err := b.s.Find(ctx, b.name); err == nil && at != keeper.ReclaimCopyingOut {
			// A new reclaim would take the stopped one's place (one
			// stopped before it touched anything may: it starts afresh).
			if _, err := b.s.Reclaim(ctx, v, ReclaimOptions{Force: true}); !errors.Is(err, keeper.ErrReclaimStopped) {
				t.Fatalf("%s: a new reclaim over a stopped one: %v", at, err)
			}
		}
		var how keeper.Resumed
		var v ramdisk.Volume
		if c, err := b.s.Create(ctx, b.request()); err == nil {
			// The disk was gone: the next create put the staged contents back.
			if at != "create" || c.Reclaimed == "" {
				t.Fatalf("%s: a create went through (reclaimed %q)", at, c.Reclaimed)
			}
			how, v = "finished by create", c.Volume
		} else {
			how, v = b.recover(ctx)
		}
		b.check(v, at)
		t.Logf("%s: %s", at, how)
	}
	if _, _, err := b.s.ResumeReclaim(ctx, b.name, nil); err == nil {
		t.Error("a resume with nothing to resume succeeded")
	}
}

// TestReclaimKilledWhileRemovingStaging is the case: 6,000 files,
// the reclaim killed while it removes its staging copy after the copy back
// was verified (150 of the copy's files gone), then `reclaim --resume`.
// The disk keeps all 6,000 files and the resume only removes the rest of
// the copy; a disk ejected after such a kill is not made again from the
// remnant either.
func TestReclaimKilledWhileRemovingStaging(t *testing.T) {
	b := newReclaimBench(t, "Six", smallTree(6000))
	ctx := context.Background()
	b.killed(b.child("cleanup"), "cleanup")
	how, v := b.recover(ctx)
	if how != keeper.ResumeFinished {
		t.Errorf("resume: %s", how)
	}
	b.check(v, "cleanup")
	if b.want.Files() < 6000 {
		t.Fatalf("the tree holds %d files", b.want.Files())
	}

	// The same kill, then the disk ejected before the resume: the remnant
	// is not a disk's contents, and nothing is made from it.
	b.killed(b.child("cleanup"), "cleanup")
	if err := b.s.Engine.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	how, _, err := b.s.ResumeReclaim(ctx, b.name, nil)
	if err != nil || how != keeper.ResumeCleaned {
		t.Fatalf("resume after the eject: %s, %v", how, err)
	}
	if _, err := b.s.Find(ctx, b.name); err == nil {
		t.Error("the resume made the ejected disk again")
	}
	if left := b.s.StoppedReclaims(); len(left) != 0 {
		t.Errorf("staging left: %+v", left)
	}
}

// TestReclaimStoppedBeforeItsRecordWentIsAnnounced: a reclaim killed
// after it removed its verified staging copy and before its record (the
// moment TestReclaimRandomKills once hit) is announced as stopped, and the
// documented recovery leaves nothing of it.
func TestReclaimStoppedBeforeItsRecordWentIsAnnounced(t *testing.T) {
	b := newReclaimBench(t, "Late", smallTree(50))
	ctx := context.Background()
	if out, err := b.child("").CombinedOutput(); err != nil {
		t.Fatalf("a reclaim: %v %s", err, out)
	}
	staging := filepath.Join(b.data, "reclaim", b.name+"-20260101T000000Z")
	journal := fmt.Sprintf(`{"name":%q,"step":%q,"staging":%q}`, b.name, keeper.ReclaimCopiedBack, staging)
	if err := record.Write(filepath.Join(b.data, "reclaiming", record.Platform.Key(b.name)+".json"), []byte(journal), true); err != nil {
		t.Fatal(err)
	}
	if left := b.s.StoppedReclaims(); len(left) != 1 || left[0].Name != b.name {
		t.Fatalf("stopped reclaims %+v, want the record's", left)
	}
	how, v := b.recover(ctx)
	if how != keeper.ResumeFinished { // the disk is there: the reclaim had finished
		t.Errorf("resume: %q", how)
	}
	b.check(v, "after the resume")
}

// TestReclaimRandomKills kills reclaims at random moments, 20 rounds, each
// followed by the documented recovery (reclaim --resume when a stopped
// reclaim is announced); the whole tree is compared with the tree before
// every time.
func TestReclaimRandomKills(t *testing.T) {
	b := newReclaimBench(t, "Random", smallTree(800))
	ctx := context.Background()
	start := time.Now()
	if out, err := b.child("").CombinedOutput(); err != nil {
		t.Fatalf("a reclaim: %v %s", err, out)
	}
	full := time.Since(start)
	v, err := b.s.Find(ctx, b.name)
	if err != nil {
		t.Fatal(err)
	}
	b.check(v, "a whole reclaim")
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 21))
	hows := map[keeper.Resumed]int{}
	for round := 0; round < 20; round++ {
		cmd := b.child("")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := time.Duration(rng.Int64N(int64(full)))
		time.Sleep(after)
		cmd.Process.Kill()
		cmd.Wait()
		how, v := b.recover(ctx)
		b.check(v, fmt.Sprintf("round %d (killed after %v)", round, after.Round(time.Millisecond)))
		hows[how]++
	}
	t.Logf("a reclaim took %v; outcomes %v", full.Round(time.Millisecond), hows)
}

// TestResumeRefusesAStagingCopyThatChanged: from "copied out" on, a resume
// uses the staging copy only while it holds what the disk held; a copy
// that lost a file meanwhile (a cleanup tool, the user) is refused and
// nothing is made from it. A disk made again by someone else that holds
// work of its own is not cleared either.
func TestResumeRefusesAStagingCopyThatChanged(t *testing.T) {
	b := newReclaimBench(t, "Changed", smallTree(200))
	ctx := context.Background()
	b.killed(b.child("create"), "create") // ejected, not made again
	staging := b.s.StoppedReclaims()[0].Path
	victim := filepath.Join(staging, "d3", "e0", "f0003")
	keep, err := os.ReadFile(victim)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(victim)
	if _, _, err := b.s.ResumeReclaim(ctx, b.name, nil); err == nil || !strings.Contains(err.Error(), "no longer holds what the disk held") {
		t.Fatalf("resume from a changed copy: %v", err)
	}
	if _, err := b.s.Create(ctx, b.request()); err == nil || !strings.Contains(err.Error(), "no longer holds what the disk held") {
		t.Fatalf("create over a changed copy: %v", err)
	}
	if _, err := b.s.Find(ctx, b.name); err == nil {
		t.Fatal("the disk was made from a changed copy")
	}
	os.WriteFile(victim, keep, 0o640)
	os.Chtimes(victim, time.Time{}, time.Unix(0, mtimeOf(t, b.want, "d3/e0/f0003")))
	os.Chtimes(filepath.Dir(victim), time.Time{}, time.Unix(0, mtimeOf(t, b.want, "d3/e0")))

	// Someone makes the disk themselves and starts working on it.
	e := b.s.Engine
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: b.name, Size: 128 * ramdisk.MiB, Force: true}, ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(v.MountPoint, "my work"), []byte("new"), 0o600)
	if _, _, err := b.s.ResumeReclaim(ctx, b.name, nil); err == nil || !strings.Contains(err.Error(), "my work") {
		t.Fatalf("resume onto someone's disk: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(v.MountPoint, "my work")); string(got) != "new" {
		t.Fatal("their work was touched")
	}
	os.Remove(filepath.Join(v.MountPoint, "my work"))
	how, v := b.recover(ctx)
	if how != keeper.ResumeFinished {
		t.Errorf("resume onto the empty disk: %s", how)
	}
	b.check(v, "after the copy was put right")
}

// mtimeOf reads a path's modification time (ns) from a digest line.
func mtimeOf(t *testing.T, d keeper.Digest, path string) int64 {
	t.Helper()
	var kind, mode string
	var ns int64
	if _, err := fmt.Sscanf(d[path], "%s %s %d", &kind, &mode, &ns); err != nil {
		t.Fatalf("%s: %q: %v", path, d[path], err)
	}
	return ns
}
