package snapshot

import (
	"bytes"
	"strconv"
)

// Files mapped shared and writable by a running process (LMDB, SQLite's
// -shm and mmap I/O, caches) change without their identity: tmpfs moves a
// file's times only when a page of the mapping is first written, not when
// a page already dirty is written again. A save finds such files
// (mappedFiles: /proc/PID/maps on Linux, lsof's mapped files on macOS)
// and compares them by content (watch.go). The parsers live here, without
// a build tag, so Linux runs their tests on captured output.

// mapsShared reads /proc/PID/maps text and returns the inodes of the
// files on device major:minor mapped shared and writable: lines
//
//	start-end perms offset major:minor inode path
//
// whose perms (rwxs or rwxp) have w and s, and whose device (hex) is the
// one asked for. Lines of another shape are skipped.
func mapsShared(text []byte, major, minor uint32, into map[uint64]bool) {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		f := bytes.Fields(line)
		if len(f) < 5 || len(f[1]) != 4 || f[1][1] != 'w' || f[1][3] != 's' {
			continue
		}
		ma, mi, ok := bytes.Cut(f[3], []byte{':'})
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(string(ma), 16, 32)
		b, err2 := strconv.ParseUint(string(mi), 16, 32)
		ino, err3 := strconv.ParseUint(string(f[4]), 10, 64)
		if err1 == nil && err2 == nil && err3 == nil && ino != 0 && uint32(a) == major && uint32(b) == minor {
			into[ino] = true
		}
	}
}

// lsofMapped reads the output of `lsof -F fi` (one field a line: p for a
// process, f for a file's descriptor, i for its inode) and returns the
// inodes of the files listed as mapped: descriptor "mem" (a memory-mapped
// file) or "txt" (program text and data, how macOS's lsof lists the files
// a process maps). lsof cannot tell there whether a mapping is shared and
// writable, so every mapped file is taken as one that may be written.
func lsofMapped(out []byte) map[uint64]bool {
	found := map[uint64]bool{}
	mapped := false
	for _, line := range bytes.Split(out, []byte{'\n'}) {
		if len(line) < 1 {
			continue
		}
		switch v := string(line[1:]); line[0] {
		case 'p':
			mapped = false
		case 'f':
			mapped = v == "mem" || v == "txt"
		case 'i':
			if n, err := strconv.ParseUint(v, 10, 64); err == nil && mapped && n != 0 {
				found[n] = true
			}
		}
	}
	return found
}
