package darwin

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// parseLsofF reads `lsof -F pc` output (one "p<pid>" line then "c<command>"
// per process, then file lines) into the distinct processes named.
func parseLsofF(b []byte) []proc {
	var out []proc
	seen := map[int]bool{}
	cur := -1
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		switch l[0] {
		case 'p':
			pid, err := strconv.Atoi(l[1:])
			if err != nil || seen[pid] {
				cur = -1
				continue
			}
			seen[pid] = true
			out = append(out, proc{PID: pid})
			cur = len(out) - 1
		case 'c':
			if cur >= 0 {
				out[cur].Command = l[1:]
			}
		}
	}
	return out
}

// mountEntry is one line of `mount` output.
type mountEntry struct {
	Source, MountPoint, FSType string
	Options                    []string
}

var reMount = regexp.MustCompile(`^(.*) on (.*) \(([^,)]+)(?:, ([^)]*))?\)$`)

// parseMount reads macOS `mount` output: "SOURCE on MOUNTPOINT (TYPE, opts...)".
func parseMount(b []byte) []mountEntry {
	var out []mountEntry
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		m := reMount.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		e := mountEntry{Source: m[1], MountPoint: m[2], FSType: m[3]}
		if m[4] != "" {
			for _, o := range strings.Split(m[4], ",") {
				e.Options = append(e.Options, strings.TrimSpace(o))
			}
		}
		out = append(out, e)
	}
	return out
}

var reOsaErr = regexp.MustCompile(`execution error: (.*) \((-?\d+)\)\s*$`)

// parseOsascriptError splits osascript's "N:M: execution error: TEXT (CODE)"
// into the text and the number (the shell exit status for `do shell script`,
// or an AppleScript error such as -128 for a cancelled prompt). ok is false
// when stderr has another shape.
func parseOsascriptError(stderr []byte) (text string, code int, ok bool) {
	m := reOsaErr.FindSubmatch(bytes.TrimSpace(stderr))
	if m == nil {
		return "", 0, false
	}
	code, _ = strconv.Atoi(string(m[2]))
	return string(m[1]), code, true
}

// Osascript codes.
const (
	osaCancelled   = -128   // the user pressed Cancel
	osaBadPassword = -60007 // the administrator name or password was wrong
)
