package ramdisk

import (
	"fmt"
	"strings"
)

// Progress is how far a long job on one disk has come (restoring, saving,
// reclaiming): what the CLI's progress line and the menu's "Saving… 45%"
// are made from.
type Progress struct {
	Disk       string // the disk's name
	Phase      string // "saving", "restoring", "copying out", "copying back", "verifying"
	BytesDone  int64
	BytesTotal int64
	FilesDone  int
	FilesTotal int
}

// ProgressFunc receives progress. It may be called from any goroutine, one
// call at a time, as often as the job likes.
type ProgressFunc func(Progress)

// Units is the progress as done of total, by bytes when there are any,
// else by files (total 0 when nothing is known yet).
func (p Progress) Units() (done, total int64) {
	if p.BytesTotal > 0 {
		return p.BytesDone, p.BytesTotal
	}
	return int64(p.FilesDone), int64(p.FilesTotal)
}

// Percent is the share done in whole percent (100 when nothing is to be done).
func (p Progress) Percent() int {
	done, total := p.Units()
	if total <= 0 {
		return 100
	}
	return int(min(100, 100*done/total))
}

// String is the CLI's wording: "Saving… 45% (1.2 GiB of 2.6 GiB, 4010 of 9000 files)".
func (p Progress) String() string {
	phase := p.Phase
	if phase != "" {
		phase = strings.ToUpper(phase[:1]) + phase[1:]
	}
	return fmt.Sprintf("%s… %d%% (%s of %s, %d of %s)", phase, p.Percent(),
		Size(p.BytesDone).Short(), Size(p.BytesTotal).Short(), p.FilesDone, Plural(p.FilesTotal, "file"))
}
