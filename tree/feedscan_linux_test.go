//go:build linux

package tree

import (
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/changefeed"
)

// churn runs round(0), round(1), … in a goroutine until halt is called or
// a round fails. halt stops it, waits for it and returns the failed
// round's error; it may be called again (deferred too, so that the churn
// ends before the test's folder goes when a check fails).
func churn(round func(i int) error) (halt func() error) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if err = round(i); err != nil {
				return
			}
		}
	}()
	return func() error {
		stop.Store(true)
		wg.Wait()
		return err
	}
}

// swapWithLink makes the folder p and the symlink p+".link" trade names,
// and back.
func swapWithLink(p string) error {
	for range 2 {
		if err := unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, p+".link", unix.RENAME_EXCHANGE); err != nil {
			return err
		}
	}
	return nil
}

// followedScan opens a change feed on root, closed when the test ends,
// takes its first changes and scans root with it: the feed and the scan
// the test's rescans start from.
func followedScan(t *testing.T, root string) (*changefeed.Feed, []Scanned, []NotKept) {
	t.Helper()
	f, err := changefeed.Open(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	f.Take()
	prev, prevNot, err := ScanWith(root, 0, nil, Opts{Feed: f})
	if err != nil {
		t.Fatal(err)
	}
	return f, prev, prevNot
}

// rescanTaken takes what f names since its last take (a lost take fails
// t, at naming when: "round 3"), rescans root by it from prev and prevNot
// with o, and scans root whole: the rescan and the full scan a test holds
// it to.
func rescanTaken(t *testing.T, at string, f *changefeed.Feed, root string, prev []Scanned, prevNot []NotKept, o Opts) (*Rescanned, []Scanned, []NotKept) {
	t.Helper()
	ch := f.Take()
	if ch.Lost {
		t.Fatalf("%s: the feed lost changes: %s", at, ch.Why)
	}
	r, err := Rescan(root, prev, prevNot, Dirty{Folders: ch.Folders, Linked: ch.Linked, Named: ch.Named}, o)
	if err != nil {
		t.Fatal(err)
	}
	want, wantNot, err := ScanWith(root, 0, nil, Opts{})
	if err != nil {
		t.Fatal(err)
	}
	return r, want, wantNot
}
