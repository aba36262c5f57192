package darwin

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// procFootprint is one process in a `footprint` report.
type procFootprint struct {
	Name      string
	PID       int
	PageSize  int64
	Footprint int64 // the headline figure
	// Phys is phys_footprint, the kernel ledger Activity Monitor shows (0
	// when not reported); Peak is phys_footprint_peak.
	Phys, Peak int64
}

// Bytes is the best figure: phys_footprint when reported, else the headline.
func (f procFootprint) Bytes() int64 {
	if f.Phys > 0 {
		return f.Phys
	}
	return f.Footprint
}

var (
	reFPHeader = regexp.MustCompile(`^(.*) \[(\d+)\]: [^ ]+ +Footprint: ([0-9.]+) ?([KMGT]?B) \((\d+) bytes per page\)`)
	reFPAux    = regexp.MustCompile(`^\s+(phys_footprint(?:_peak)?): ([0-9.]+) ?([KMGT]?B)`)
)

func unitBytes(num, unit string) (int64, error) {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, err
	}
	mult := map[string]float64{"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q", unit)
	}
	return int64(f * mult), nil
}

// parseFootprintText reads footprint's text report (formatted or -f bytes),
// one entry per process block.
func parseFootprintText(b []byte) ([]procFootprint, error) {
	var out []procFootprint
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if m := reFPHeader.FindStringSubmatch(line); m != nil {
			pid, _ := strconv.Atoi(m[2])
			n, err := unitBytes(m[3], m[4])
			if err != nil {
				return nil, fmt.Errorf("footprint: %q: %w", line, err)
			}
			ps, _ := strconv.ParseInt(m[5], 10, 64)
			out = append(out, procFootprint{Name: m[1], PID: pid, Footprint: n, PageSize: ps})
			continue
		}
		if m := reFPAux.FindStringSubmatch(line); m != nil && len(out) > 0 {
			n, err := unitBytes(m[2], m[3])
			if err != nil {
				return nil, fmt.Errorf("footprint: %q: %w", line, err)
			}
			if m[1] == "phys_footprint" {
				out[len(out)-1].Phys = n
			} else {
				out[len(out)-1].Peak = n
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("footprint: no process in report %q", firstLine(b))
	}
	return out, nil
}

// parseRSS reads `ps -o rss= -p PID` (KiB, right-aligned) into bytes.
func parseRSS(b []byte) (int64, error) {
	s := strings.TrimSpace(string(b))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ps rss: %q: %w", s, err)
	}
	return n * 1024, nil
}
