//go:build linux

package changefeed

import (
	"os"
	"strconv"
	"strings"
)

// Status tells which kind of feed f is and what it holds.
func (f *Feed) Status() Status {
	if f.ext.fan != nil {
		return Status{Kind: KindFanotify, Lost: f.lost()}
	}
	s := Status{Kind: KindInotify, Budget: WatchBudget(), Why: f.ext.why, Lost: f.lost()}
	if f.mode != ModeNative {
		s.Mode = f.mode.String()
	}
	f.mu.Lock()
	s.Watches, s.Unwatched = len(f.wds), len(f.ext.unwatched)
	f.mu.Unlock()
	s.Marks = f.Marks()
	return s
}

// capSysAdmin is CAP_SYS_ADMIN's bit in /proc/self/status's CapEff.
const capSysAdmin = 21

// FanotifyDenied says why this process may not follow disks by fanotify
// ("" when it may: root, or CAP_SYS_ADMIN). A disk it may still falls
// back to inotify when its file system gives no file handles (the feed's
// Status says why).
func FanotifyDenied() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "read /proc/self/status: " + err.Error()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			if caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64); err == nil && caps&(1<<capSysAdmin) != 0 {
				return ""
			}
			break
		}
	}
	return "a fanotify filesystem mark needs root or CAP_SYS_ADMIN"
}
