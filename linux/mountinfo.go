package linux

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// mountEntry is one line of /proc/PID/mountinfo (proc(5)): a file system mounted
// somewhere, with the kernel's octal escapes (\040 for a space) undone.
type mountEntry struct {
	ID, Parent   int
	Major, Minor uint32 // st_dev of files on it
	Root         string // the mounted subtree of the file system
	MountPoint   string
	Options      string // per-mount options: rw,nosuid,relatime
	FSType       string // tmpfs, ext4
	Source       string // tmpfs: whatever the mounter named it (rambar); ext4: /dev/zram1
	SuperOptions string // per-file-system options: rw,size=16384k,mode=700
}

// SuperOption returns the value of key in the per-file-system options
// ("size" in "rw,size=16384k" gives "16384k") and whether it is there.
func (m mountEntry) SuperOption(key string) (string, bool) {
	for _, o := range strings.Split(m.SuperOptions, ",") {
		k, v, _ := strings.Cut(o, "=")
		if k == key {
			return v, true
		}
	}
	return "", false
}

// parseMountInfo reads the mount table in the format of /proc/self/mountinfo:
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// The optional fields (master:1) may be any in number; they end at a lone
// "-". Paths and the source are unescaped (\040 space, \011 tab, \012
// newline, \134 backslash). A malformed line is an error naming its number.
func parseMountInfo(r io.Reader) ([]mountEntry, error) {
	var out []mountEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		m, err := parseMountLine(line)
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %d: %w", n, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mountinfo: %w", err)
	}
	return out, nil
}

func parseMountLine(line string) (mountEntry, error) {
	f := strings.Split(line, " ")
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if len(f) < 10 || sep < 0 || len(f) < sep+4 {
		return mountEntry{}, fmt.Errorf("malformed: %q", line)
	}
	var m mountEntry
	var err error
	if m.ID, err = strconv.Atoi(f[0]); err != nil {
		return mountEntry{}, fmt.Errorf("mount id %q: %w", f[0], err)
	}
	if m.Parent, err = strconv.Atoi(f[1]); err != nil {
		return mountEntry{}, fmt.Errorf("parent id %q: %w", f[1], err)
	}
	maj, min, ok := strings.Cut(f[2], ":")
	if !ok {
		return mountEntry{}, fmt.Errorf("device %q: want major:minor", f[2])
	}
	ma, err1 := strconv.ParseUint(maj, 10, 32)
	mi, err2 := strconv.ParseUint(min, 10, 32)
	if err1 != nil || err2 != nil {
		return mountEntry{}, fmt.Errorf("device %q: want major:minor", f[2])
	}
	m.Major, m.Minor = uint32(ma), uint32(mi)
	m.Root = unescapeMount(f[3])
	m.MountPoint = unescapeMount(f[4])
	m.Options = f[5]
	m.FSType = unescapeMount(f[sep+1])
	m.Source = unescapeMount(f[sep+2])
	m.SuperOptions = strings.Join(f[sep+3:], " ")
	return m, nil
}

// unescapeMount undoes the kernel's mangling of mount table fields: a
// backslash and three octal digits stand for one byte. Anything else is
// kept as it is.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && isOctal(s, i+1) {
			v, _ := strconv.ParseUint(s[i+1:i+4], 8, 8)
			b.WriteByte(byte(v))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(s string, i int) bool {
	if i+3 > len(s) {
		return false
	}
	for _, c := range s[i : i+3] {
		if c < '0' || c > '7' {
			return false
		}
	}
	// \400 and above do not fit a byte.
	return s[i] <= '3'
}
