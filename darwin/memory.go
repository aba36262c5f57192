package darwin

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// vmStat is `vm_stat` output: the page size from its header and every row,
// keyed by its label ("Pages free", "Pages occupied by compressor").
type vmStat struct {
	PageSize int64
	Pages    map[string]int64
}

var rePageSize = regexp.MustCompile(`page size of (\d+) bytes`)

// parseVMStat reads `vm_stat`. Rows are split on their last ':' (one label
// is quoted), one trailing '.' is dropped, unknown rows are kept.
func parseVMStat(b []byte) (vmStat, error) {
	v := vmStat{Pages: map[string]int64{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if m := rePageSize.FindStringSubmatch(line); m != nil {
			v.PageSize, _ = strconv.ParseInt(m[1], 10, 64)
			continue
		}
		i := strings.LastIndexByte(line, ':')
		if i < 0 {
			continue
		}
		k := strings.Trim(strings.TrimSpace(line[:i]), `"`)
		val := strings.TrimSuffix(strings.TrimSpace(line[i+1:]), ".")
		val = strings.ReplaceAll(val, ",", "")
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			continue
		}
		v.Pages[k] = n
	}
	if v.PageSize == 0 {
		return v, fmt.Errorf("vm_stat: no page size in header %q", firstLine(b))
	}
	if _, ok := v.Pages["Pages free"]; !ok {
		return v, fmt.Errorf("vm_stat: no \"Pages free\" row")
	}
	return v, nil
}

// Bytes returns a row in bytes.
func (v vmStat) Bytes(label string) int64 { return v.Pages[label] * v.PageSize }

// Available is memory usable without paging: free + inactive + speculative
// pages (the usual approximation; macOS publishes no official figure).
func (v vmStat) Available() int64 {
	return v.Bytes("Pages free") + v.Bytes("Pages inactive") + v.Bytes("Pages speculative")
}

// Compressed is the memory the compressor occupies.
func (v vmStat) Compressed() int64 { return v.Bytes("Pages occupied by compressor") }

// sysctlValues is `sysctl NAME...` output, "name: value" per line (or bare values
// with -n, keyed "" in order).
type sysctlValues map[string]string

// parseSysctl reads `sysctl hw.memsize vm.swapusage`.
func parseSysctl(b []byte) sysctlValues {
	s := sysctlValues{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ": ")
		if !ok {
			continue
		}
		s[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return s
}

// MemSize is hw.memsize in bytes.
func (s sysctlValues) MemSize() (int64, error) {
	v, ok := s["hw.memsize"]
	if !ok {
		return 0, fmt.Errorf("sysctl: no hw.memsize")
	}
	return strconv.ParseInt(v, 10, 64)
}

// swapUsage is vm.swapusage.
type swapUsage struct{ Total, Used, Free int64 }

var reSwap = regexp.MustCompile(`(total|used|free) = ([0-9.]+)([KMGT]?)`)

// parseSwap reads a vm.swapusage value ("total = 2048.00M  used = 1462.50M
// free = 585.50M  (encrypted)"), with or without the "vm.swapusage: " prefix.
func parseSwap(s string) (swapUsage, error) {
	var w swapUsage
	ms := reSwap.FindAllStringSubmatch(s, -1)
	if len(ms) < 2 {
		return w, fmt.Errorf("vm.swapusage: cannot read %q", s)
	}
	for _, m := range ms {
		f, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return w, fmt.Errorf("vm.swapusage: %q: %w", m[0], err)
		}
		mult := map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m[3]]
		n := int64(f * mult)
		switch m[1] {
		case "total":
			w.Total = n
		case "used":
			w.Used = n
		case "free":
			w.Free = n
		}
	}
	return w, nil
}

// pressureReport is `memory_pressure` (or `memory_pressure -Q`) output.
type pressureReport struct {
	Physical    int64 // "The system has N ..."
	PageSize    int64 // 0 in the -Q wording
	FreePercent int   // "System-wide memory free percentage: N%"; -1 when absent
}

var (
	reSystemHas = regexp.MustCompile(`The system has (\d+)`)
	rePPage     = regexp.MustCompile(`page size of (\d+)\)`)
	reFreePct   = regexp.MustCompile(`System-wide memory free percentage: (\d+)%`)
)

// parsePressure reads `memory_pressure` in both first-line wordings.
func parsePressure(b []byte) (pressureReport, error) {
	p := pressureReport{FreePercent: -1}
	if m := reSystemHas.FindSubmatch(b); m != nil {
		p.Physical, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	if m := rePPage.FindSubmatch(b); m != nil {
		p.PageSize, _ = strconv.ParseInt(string(m[1]), 10, 64)
	}
	if m := reFreePct.FindSubmatch(b); m != nil {
		p.FreePercent, _ = strconv.Atoi(string(m[1]))
	}
	if p.FreePercent < 0 {
		return p, fmt.Errorf("memory_pressure: no free percentage in %q", firstLine(b))
	}
	return p, nil
}

// pressureLevel names kern.memorystatus_vm_pressure_level (1, 2, 4) the way
// ramdisk.Memory.Pressure does: "normal", "warn", "critical"; "" if unknown.
func pressureLevel(v string) string {
	switch strings.TrimSpace(v) {
	case "1":
		return "normal"
	case "2":
		return "warn"
	case "4":
		return "critical"
	}
	return ""
}
