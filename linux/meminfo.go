package linux

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"rambar/ramdisk"
)

// parseMemInfo reads /proc/meminfo ("MemTotal:       24683656 kB") into
// bytes by key. Lines without a unit (HugePages_Total) keep their plain
// count. A line that is not "Key: number [kB]" is an error naming it.
func parseMemInfo(r io.Reader) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		key, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(rest)
		if !ok || key == "" || len(f) == 0 || len(f) > 2 {
			return nil, fmt.Errorf("meminfo line %d: malformed: %q", n, line)
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("meminfo line %d: %q: not a count", n, line)
		}
		if len(f) == 2 {
			if f[1] != "kB" {
				return nil, fmt.Errorf("meminfo line %d: %q: unknown unit %q", n, line, f[1])
			}
			v *= 1024
		}
		out[key] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read meminfo: %w", err)
	}
	return out, nil
}

// memoryFrom turns parsed /proc/meminfo figures into ramdisk.Memory.
// Compressed is what zram devices hold (the sum of their mem_used_total),
// which /proc/meminfo does not show. MemTotal is required; a kernel older
// than 3.14 without MemAvailable falls back to MemFree+Cached.
func memoryFrom(mi map[string]int64, zramHeld ramdisk.Size) (ramdisk.Memory, error) {
	total, ok := mi["MemTotal"]
	if !ok || total <= 0 {
		return ramdisk.Memory{}, fmt.Errorf("meminfo: no MemTotal")
	}
	avail, ok := mi["MemAvailable"]
	if !ok {
		avail = mi["MemFree"] + mi["Cached"]
	}
	if avail > total {
		avail = total
	}
	swapUsed := mi["SwapTotal"] - mi["SwapFree"]
	if swapUsed < 0 {
		swapUsed = 0
	}
	return ramdisk.Memory{
		Physical:   ramdisk.Size(total),
		Free:       ramdisk.Size(avail),
		Compressed: zramHeld,
		SwapTotal:  ramdisk.Size(mi["SwapTotal"]),
		SwapUsed:   ramdisk.Size(swapUsed),
	}, nil
}
