package tree

import (
	"sync"
	"time"

	"rambar/ramdisk"
)

// Progress is how far a save, restore or reclaim has come: the one
// Progress type (ramdisk.Progress), its Disk left to the use cases. Totals
// are known from the start (the tree is scanned first).
type Progress = ramdisk.Progress

// ProgressFunc receives progress; here it is called from one goroutine at
// a time, at most every 100 ms and once at the end.
type ProgressFunc = ramdisk.ProgressFunc

// Phase relabels progress reports.
func Phase(fn ProgressFunc, name string) ProgressFunc {
	if fn == nil {
		return nil
	}
	return func(p Progress) { p.Phase = name; fn(p) }
}

// Meter counts work done and reports it through a ProgressFunc, throttled.
type Meter struct {
	mu   sync.Mutex
	p    Progress
	fn   ProgressFunc
	last time.Time
}

// NewMeter reports to fn the progress of phase over bytes and files.
func NewMeter(fn ProgressFunc, phase string, bytes int64, files int) *Meter {
	m := &Meter{fn: fn, p: Progress{Phase: phase, BytesTotal: bytes, FilesTotal: files}}
	m.report(true)
	return m
}

// Add counts bytes and files done.
func (m *Meter) Add(bytes int64, files int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.p.BytesDone += bytes
	m.p.FilesDone += files
	m.mu.Unlock()
	m.report(false)
}

func (m *Meter) report(force bool) {
	if m == nil || m.fn == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !force && time.Since(m.last) < 100*time.Millisecond {
		return
	}
	m.last = time.Now()
	m.fn(m.p)
}

// Done reports the final count.
func (m *Meter) Done() { m.report(true) }
