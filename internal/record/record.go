// Package record keeps RAMBar's small records in its data folder and the
// step journals built on them. A record is written whole and durably (a
// temporary file renamed over it, internal/atomicfile, in a folder made
// 0700, the file 0600) and read as untrusted input: bounded, and a record
// too large to be RAMBar's is refused, not cut. Records of a disk are kept
// under a key made from its name by one rule (Names: exact on Linux,
// folded on macOS), and records an older RAMBar kept under another key are
// still read. On top, a Log is a step journal: the record of a multi-step
// operation is written before each step is taken, so the next run finishes
// or undoes what a kill -9 cut short, and Leftovers and doctor list every
// step still pending. Lock (flock) and Proc (is the process that wrote a
// record still running) are the two other things records are made with.
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rambar/internal/atomicfile"
)

// MaxSize bounds a record's size unless its kind says otherwise.
const MaxSize = 64 << 10

// ErrTooLarge is a record larger than its bound: not RAMBar's, never read.
var ErrTooLarge = errors.New("record too large")

// ReadFile reads the file at path, refusing one of more than limit bytes
// (ErrTooLarge) and a path that is not a regular file. It never follows a
// symbolic link at the last component.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s: %w (over %d bytes)", path, ErrTooLarge, limit)
	}
	return b, nil
}

// ReadJSON reads the record at path (ReadFile) into v.
func ReadJSON(path string, limit int64, v any) error {
	b, err := ReadFile(path, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// WriteJSON writes v as JSON to path, whole and durably, making its folder
// (0700) first; the file is 0600.
func WriteJSON(path string, v any) error { return writeJSON(path, v, true) }

// WriteJSONFast is WriteJSON without waiting for stable storage: for a
// record that is information, whose loss in a power cut loses nothing.
func WriteJSONFast(path string, v any) error { return writeJSON(path, v, false) }

func writeJSON(path string, v any, durable bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("record %s: %w", path, err)
	}
	return Write(path, b, durable)
}

// Write writes data to path whole (durably when durable), making its
// folder (0700) first; the file is 0600. A copy of it a killed writer left
// is removed.
func Write(path string, data []byte, durable bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("record %s: %w", path, err)
	}
	write := atomicfile.WriteFast
	if durable {
		write = atomicfile.WriteFile
	}
	if err := write(path, data, 0o600); err != nil {
		return err
	}
	// What a writer of this file killed between its write and its rename
	// left (RemoveDeadTemp): never a write under way.
	dir, base := filepath.Split(path)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "."+base+".tmp-") {
			RemoveDeadTemp(dir, e)
		}
	}
	return nil
}
