package selftest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"rambar/internal/atomicfile"
)

// Status is a check's outcome.
type Status string

// Outcomes. Skip is for a check that cannot be made here for a reason that
// is not RAMBar's fault (a macOS-only part on Linux, notifications the user
// has turned off); its Detail says which.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one line of the report.
type Check struct {
	// Name is the line's stable name ("engine.small"); darwin/README.md
	// ties each open question to one.
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Detail is what was found, in one line (English).
	Detail string `json:"detail"`
	// Format and Args are what Detail was made from, so a front end can
	// say it in the user's language (the format is the catalog's key).
	Format string `json:"-"`
	Args   []any  `json:"-"`
	// Rule is what was checked, as it applies on this system.
	Rule string `json:"rule,omitempty"`
	// Data holds the measured figures and what was read back.
	Data map[string]any `json:"data,omitempty"`
	// Seconds is how long the check took.
	Seconds float64 `json:"seconds"`
}

// Passf, Failf and Skipf make a check of that outcome; format is English,
// the catalog's key.
func Passf(name, format string, args ...any) Check { return newCheck(name, Pass, format, args) }

// Failf is a failed check.
func Failf(name, format string, args ...any) Check { return newCheck(name, Fail, format, args) }

// Skipf is a check that could not be made here.
func Skipf(name, format string, args ...any) Check { return newCheck(name, Skip, format, args) }

func newCheck(name string, st Status, format string, args []any) Check {
	return Check{Name: name, Status: st, Detail: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// Timed runs f and records how long it took.
func Timed(f func() Check) Check {
	start := time.Now()
	c := f()
	c.Seconds = time.Since(start).Round(time.Millisecond).Seconds()
	return c
}

// Report is a whole run.
type Report struct {
	Version int       `json:"version"`
	RAMBar  string    `json:"rambar"`
	OS      string    `json:"os"`
	Arch    string    `json:"arch"`
	System  string    `json:"system,omitempty"` // "macOS 15.2", a kernel release
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Dir     string    `json:"dir"`
	Checks  []Check   `json:"checks"`
	Passed  int       `json:"passed"`
	Failed  int       `json:"failed"`
	Skipped int       `json:"skipped"`

	mu  sync.Mutex
	log func(Check)
}

// ReportVersion is the report's format version.
const ReportVersion = 1

// NewReport starts a report; each check added is also given to log (nil:
// nothing), so a run shows its progress.
func NewReport(rambar, goos, arch, dir string, log func(Check)) *Report {
	return &Report{Version: ReportVersion, RAMBar: rambar, OS: goos, Arch: arch, Dir: dir, Started: time.Now(), Checks: []Check{}, log: log}
}

// Add records checks; safe from any goroutine.
func (r *Report) Add(cs ...Check) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		r.Checks = append(r.Checks, c)
		switch c.Status {
		case Pass:
			r.Passed++
		case Fail:
			r.Failed++
		default:
			r.Skipped++
		}
		if r.log != nil {
			r.log(c)
		}
	}
}

// OK reports whether no check failed (and at least one was made).
func (r *Report) OK() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Failed == 0 && len(r.Checks) > 0
}

// Line is one check as the summary shows it.
func Line(c Check) string { return lineIn(tongue{}, c) }

// Summary is the report on one screen: a line a check, then the totals
// (summary.txt, in English).
func (r *Report) Summary() string { return r.SummaryIn(nil) }

// Write ends the report (its total time) and writes report.json and
// summary.txt into its Dir, each whole or not at all.
func (r *Report) Write() error {
	r.mu.Lock()
	r.Seconds = time.Since(r.Started).Round(time.Millisecond).Seconds()
	data, err := json.MarshalIndent(r, "", "  ")
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("self-test report: %w", err)
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("self-test report: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(r.Dir, "report.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("self-test report: %w", err)
	}
	return atomicfile.WriteFile(filepath.Join(r.Dir, "summary.txt"), []byte(r.Summary()), 0o644)
}
