//go:build linux

package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"rambar/internal/testdigest"
	"rambar/snapstore"
)

// TestSaveWaitsOutAChurn: a save by the feed begun while a program remakes
// folders of thousands of hard links into a store (pnpm's node_modules
// removed and installed again: no steady take can hold them) plans no
// round while the churn goes on: it waits for the disk to calm and
// commits the disk as it is after it, not a snapshot taken while in use;
// the rounds it plans meanwhile are few.
func TestSaveWaitsOutAChurn(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for d := range 5 {
		for f := range 100 {
			p := filepath.Join(root, fmt.Sprintf("store%d/f%d", d, f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
	_, f := following(t, root)
	if _, err := s.SaveLocked(ctx, root, "disk", 3, nil, f); err != nil {
		t.Fatal(err)
	}
	var planned atomic.Int32
	roundPlanned = func(int) { planned.Add(1) }
	t.Cleanup(func() { roundPlanned = nil })
	stopped := make(chan time.Time, 1)
	churned := make(chan error, 1)
	go func() {
		end := time.Now().Add(3 * time.Second)
		var err error
		for n := 0; err == nil && time.Now().Before(end); n++ {
			dir := filepath.Join(root, "node_modules", fmt.Sprint(n))
			if err = os.MkdirAll(dir, 0o755); err != nil {
				break
			}
			for k := 0; err == nil && k < 2000; k++ {
				err = os.Link(filepath.Join(root, fmt.Sprintf("store%d/f%d", k%500/100, k%100)), filepath.Join(dir, fmt.Sprint(k)))
			}
			if err == nil && n > 0 {
				err = os.RemoveAll(filepath.Join(root, "node_modules", fmt.Sprint(n-1)))
			}
		}
		stopped <- time.Now()
		churned <- err
	}()
	time.Sleep(300 * time.Millisecond) // the churn is under way
	res, err := s.SaveLocked(ctx, root, "disk", 3, nil, f)
	stop := <-stopped
	if err := <-churned; err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("save %+v; %d rounds planned", res, planned.Load())
	if res.InUse != nil || res.Unchanged || res.AsOf.Before(stop) {
		t.Fatalf("save during the churn: in use %v, unchanged %v, as of %v before the churn stopped: want the disk as it is after it",
			res.InUse != nil, res.Unchanged, stop.Sub(res.AsOf))
	}
	if n := planned.Load(); n > 3 {
		t.Errorf("%d rounds planned during the churn: want it waited out", n)
	}
	out := t.TempDir()
	if _, err := s.Restore(ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	testdigest.Same(t, testdigest.Of(t, root), testdigest.Of(t, out))
}
