//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"rambar/internal/record"
	"rambar/ramdisk"
)

// A zram record notes a zram device that a Create is making, so a Create
// killed half way (kill -9, a crash) leaves a trace of the device it added:
// the record is written before hot_add with the devices there are then and
// room for the device number (deviceSlot), which hot_add's own answer fills
// in (the kernel reads hot_add straight into the record: sendfile as root,
// dd through pkexec). A kill can still come between the kernel adding the
// device and that write (sendfile stops at a fatal signal): the record then
// names no device, and the device is found as the one it could have made
// (zram_adding.go). The record is removed once the disk is mounted or the
// device freed again. A later Create frees the devices of records whose
// process is gone (FreeLeftoverDevices); doctor lists them
// (LeftoverDevices). A zram device that no record names or could have made
// (swap on zram0, anyone else's) is never touched.

// rootZramRecords is where root keeps zram records: /run is a tmpfs, empty
// after a reboot, as every zram device is.
const rootZramRecords = "/run/rambar/zram"

// zramRecordMagic starts every record's one line.
const zramRecordMagic = "rambar-zram-1"

// WithZramRecords keeps the zram records in dir instead of the default
// (/run/rambar/zram as root, DATA/zram for a desktop user). Tests give each
// test its own.
func WithZramRecords(dir string) Option {
	return func(e *Engine) {
		if dir != "" {
			e.records = filepath.Clean(dir)
		}
	}
}

// defaultZramRecords is the records folder: root's under /run, a desktop
// user's in the data folder (the records then carry the boot id, so a
// record from before a reboot is dropped unread).
func defaultZramRecords(asRoot bool, getenv func(string) string) string {
	if asRoot {
		return rootZramRecords
	}
	if p, err := ramdisk.DefaultPaths("linux", getenv); err == nil && p.Data != "" {
		return filepath.Join(p.Data, "zram")
	}
	return ""
}

// zramRecord is one record: which process, in which boot, adds which device
// (-1 before hot_add) of what size.
type zramRecord struct {
	path  string
	boot  string
	pid   int
	start uint64 // the process's start time (/proc/PID/stat), against pid reuse
	dev   int
	size  int64
	// ino is the kernel's number for the device's sysfs folder
	// (/sys/devices/virtual/block/zramN), noted right after hot_add: a
	// device removed and added again under the same N by anyone gets
	// another, so a record never names someone else's device. 0: not noted.
	ino uint64
	// adding: the record was written before hot_add with the devices
	// there were then (before); afterSet: the devices there were when its
	// process was first seen gone are noted too (after). See zram_adding.go.
	adding, afterSet bool
	before, after    []zramSeen
}

func (r zramRecord) line() string {
	head := fmt.Sprintf("%s %s %d %d %d %d", zramRecordMagic, r.boot, r.pid, r.start, r.dev, r.size)
	switch {
	case r.ino != 0:
		return fmt.Sprintf("%s %d\n", head, r.ino)
	case r.dev < 0 && r.adding && r.afterSet:
		return fmt.Sprintf("%s b=%s a=%s\n", head, formatSeen(r.before), formatSeen(r.after))
	case r.dev < 0 && r.adding:
		return fmt.Sprintf("%s b=%s\n", head, formatSeen(r.before))
	}
	return head + "\n"
}

// deviceSlot is how many bytes follow a record's line for hot_add's answer
// ("N\n"): spaces until it is written.
const deviceSlot = 16

// parseZramRecord reads a record: its line, then its device slot (spaces,
// or hot_add's "N\n" and spaces), which gives the device when the line has
// none. Anything else is not a record.
func parseZramRecord(path, text string) (zramRecord, bool) {
	line, slot, ok := strings.Cut(text, "\n")
	slotDev := -1
	switch filled := strings.TrimRight(slot, " "); {
	case !ok:
		return zramRecord{}, false
	case slot == "":
	case len(slot) != deviceSlot:
		return zramRecord{}, false
	case filled != "":
		n, err := strconv.Atoi(strings.TrimSuffix(filled, "\n"))
		if err != nil || n < 0 || !strings.HasSuffix(filled, "\n") || strconv.Itoa(n)+"\n" != filled {
			return zramRecord{}, false
		}
		slotDev = n
	}
	f := strings.Fields(line)
	if len(f) < 6 || len(f) > 8 || f[0] != zramRecordMagic || f[1] == "" {
		return zramRecord{}, false
	}
	r := zramRecord{path: path, boot: f[1]}
	if len(f) > 6 && strings.HasPrefix(f[6], "b=") {
		if !r.parseLists(f[6:]) || f[4] != "-1" {
			return zramRecord{}, false
		}
		f = f[:6]
	}
	if len(f) == 8 {
		return zramRecord{}, false
	}
	var err [4]error
	r.pid, err[0] = strconv.Atoi(f[2])
	r.start, err[1] = strconv.ParseUint(f[3], 10, 64)
	r.dev, err[2] = strconv.Atoi(f[4])
	r.size, err[3] = strconv.ParseInt(f[5], 10, 64)
	if len(f) == 7 {
		if r.ino, err[0] = strconv.ParseUint(f[6], 10, 64); r.ino == 0 || r.dev < 0 {
			return zramRecord{}, false
		}
	}
	if errors.Join(err[:]...) != nil || r.pid <= 0 || r.dev < -1 || r.size <= 0 || slotDev >= 0 && r.dev >= 0 && slotDev != r.dev {
		return zramRecord{}, false
	}
	if slotDev >= 0 {
		r.dev = slotDev
	}
	return r, true
}

// parseLists reads an adding record's lists: "b=LIST" and maybe "a=LIST".
func (r *zramRecord) parseLists(f []string) bool {
	var ok bool
	r.adding = true
	if r.before, ok = parseSeen(strings.TrimPrefix(f[0], "b=")); !ok {
		return false
	}
	if len(f) == 1 {
		return true
	}
	text, isAfter := strings.CutPrefix(f[1], "a=")
	r.after, ok = parseSeen(text)
	r.afterSet = true
	return isAfter && ok
}

// recordsDir makes (when missing) and checks the records folder: a real
// folder owned by this user that no one else may enter. "" when there is
// none.
func (e *Engine) recordsDir() (string, error) {
	if e.records == "" {
		return "", nil
	}
	if err := os.MkdirAll(e.records, 0o700); err != nil {
		return "", fmt.Errorf("zram records: mkdir %s: %w", e.records, err)
	}
	if err := checkPrivate(e.records); err != nil {
		return "", fmt.Errorf("zram records: %w", err)
	}
	return e.records, nil
}

// checkPrivate refuses a folder that is a symlink, not this user's, or open
// to others.
func checkPrivate(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	case !ok || int(sys.Uid) != os.Geteuid():
		return fmt.Errorf("%s is not owned by this user", dir)
	case st.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s is open to other users (mode %04o)", dir, st.Mode().Perm())
	}
	return nil
}

// beginZramRecord writes the record of a device about to be hot-added.
// Without a records folder it returns a record that writes nothing.
func (e *Engine) beginZramRecord(size int64) (zramRecord, error) {
	dir, err := e.recordsDir()
	if err != nil || dir == "" {
		return zramRecord{}, err
	}
	pid := os.Getpid()
	r := zramRecord{boot: e.bootID(), pid: pid, start: e.startTime(pid), dev: -1, size: size}
	r.path = filepath.Join(dir, fmt.Sprintf("create-%d-%d.rec", pid, e.now().UnixNano()))
	return r, e.noteBefore(&r)
}

func (r zramRecord) write() error {
	if r.path == "" {
		return nil
	}
	if err := record.Write(r.path, []byte(r.line()+strings.Repeat(" ", deviceSlot)), false); err != nil {
		return fmt.Errorf("zram record %s: %w", r.path, err)
	}
	return nil
}

func (r zramRecord) remove() {
	if r.path != "" {
		os.Remove(r.path)
	}
}

// maxRecord bounds a record's size: its line with two device lists, and
// its device slot.
const maxRecord = 512 + 2*maxSeen*32 + deviceSlot

// bootID is this boot's id (/proc/sys/kernel/random/boot_id).
func (e *Engine) bootID() string {
	b, err := os.ReadFile(filepath.Join(e.proc, "sys", "kernel", "random", "boot_id"))
	if id := strings.TrimSpace(string(b)); err == nil && id != "" && !strings.ContainsAny(id, " \t\n") {
		return id
	}
	return "unknown"
}

// startTime is when process pid started, from this engine's /proc
// (record.StartTimeIn); 0 when the process is gone.
func (e *Engine) startTime(pid int) uint64 { return record.StartTimeIn(e.proc, pid) }

// readRecords reads every record in the records folder.
func (e *Engine) readRecords() []zramRecord {
	dir, err := e.recordsDir()
	if err != nil || dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []zramRecord
	for _, de := range ents {
		if !de.Type().IsRegular() || !isRecordName(de.Name()) {
			continue
		}
		p := filepath.Join(dir, de.Name())
		b, err := record.ReadFile(p, maxRecord)
		if err != nil {
			continue
		}
		if r, ok := parseZramRecord(p, string(b)); ok {
			out = append(out, r)
		} else if pid, ok := tempRecordPid(de.Name()); ok && !e.running(zramRecord{pid: pid}) {
			os.Remove(p) // half written by a process that is gone
		}
	}
	return out
}

// isRecordName: create-PID-TIME.rec, or its temporary copy
// (.create-PID-TIME.rec.tmp-*, see atomicfile), which a kill between write
// and rename leaves, holding the newer record.
func isRecordName(name string) bool {
	_, temp := tempRecordPid(name)
	return temp || strings.HasPrefix(name, "create-") && strings.HasSuffix(name, ".rec")
}

// tempRecordPid returns the pid in a temporary record's name.
func tempRecordPid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, ".create-")
	pidText, _, cut := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	return pid, ok && cut && err == nil && pid > 0 && strings.Contains(name, ".rec.tmp-")
}
