package tree

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"rambar/ramdisk"
)

// Progress is how far a save, restore or reclaim has come. Totals are known
// from the start (the tree is scanned first).
type Progress struct {
	Phase      string // "saving", "restoring", "copying out", "copying back", "verifying"
	BytesDone  int64
	BytesTotal int64
	FilesDone  int
	FilesTotal int
}

// Percent is the share done, by bytes when there are any, else by files.
func (p Progress) Percent() int {
	switch {
	case p.BytesTotal > 0:
		return int(100 * p.BytesDone / p.BytesTotal)
	case p.FilesTotal > 0:
		return 100 * p.FilesDone / p.FilesTotal
	}
	return 100
}

// String is the tray's and CLI's wording: "Saving… 45% (1.2 GiB of 2.6 GiB, 4,010 of 9,000 files)".
func (p Progress) String() string {
	phase := p.Phase
	if phase != "" {
		phase = strings.ToUpper(phase[:1]) + phase[1:]
	}
	return fmt.Sprintf("%s… %d%% (%s of %s, %d of %d files)", phase, p.Percent(),
		ramdisk.Size(p.BytesDone).Short(), ramdisk.Size(p.BytesTotal).Short(), p.FilesDone, p.FilesTotal)
}

// ProgressFunc receives progress; it is called from one goroutine at a time,
// at most every 100 ms and once at the end.
type ProgressFunc func(Progress)

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
