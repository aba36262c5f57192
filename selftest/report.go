package selftest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	// Detail is what was found, in one line.
	Detail string `json:"detail"`
	// Rule is what was checked, as it applies on this system.
	Rule string `json:"rule,omitempty"`
	// Data holds the measured figures and what was read back.
	Data map[string]any `json:"data,omitempty"`
	// Seconds is how long the check took.
	Seconds float64 `json:"seconds"`
}

// Passf, Failf and Skipf make a check of that outcome.
func Passf(name, format string, args ...any) Check {
	return Check{Name: name, Status: Pass, Detail: fmt.Sprintf(format, args...)}
}

// Failf is a failed check.
func Failf(name, format string, args ...any) Check {
	return Check{Name: name, Status: Fail, Detail: fmt.Sprintf(format, args...)}
}

// Skipf is a check that could not be made here.
func Skipf(name, format string, args ...any) Check {
	return Check{Name: name, Status: Skip, Detail: fmt.Sprintf(format, args...)}
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
func Line(c Check) string {
	st := string(c.Status)
	if c.Status == Fail {
		st = "FAIL"
	}
	return fmt.Sprintf("  %-4s  %-18s %s", st, c.Name, c.Detail)
}

// Summary is the report on one screen: a line a check, then the totals.
func (r *Report) Summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	sys := r.OS + "/" + r.Arch
	if r.System != "" {
		sys += " (" + r.System + ")"
	}
	fmt.Fprintf(&b, "RAMBar %s self-test on %s\n", r.RAMBar, sys)
	for _, c := range r.Checks {
		b.WriteString(Line(c))
		b.WriteByte('\n')
	}
	verdict := "all checks passed"
	if r.Failed > 0 {
		verdict = fmt.Sprintf("%d FAILED", r.Failed)
	}
	fmt.Fprintf(&b, "%s: %d passed, %d failed, %d skipped in %.0f s\n", verdict, r.Passed, r.Failed, r.Skipped, r.Seconds)
	if r.Dir != "" {
		fmt.Fprintf(&b, "Report: %s\n", filepath.Join(r.Dir, "report.json"))
	}
	return b.String()
}

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
