package diskid

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
)

// Kinds of disks a mark or a record names.
const (
	KindPlain  = "plain"  // contents die with it
	KindKept   = "keep"   // kept: saved and restored (ramdisk.Keep)
	KindMirror = "mirror" // mirrors a folder (ramdisk.Mirror)
	KindTry    = "try"    // the temporary disk of `rambar try`
)

// Mark is what RAMBar writes on a disk's root folder, as an extended
// attribute: who made the disk and for what.
type Mark struct {
	// Volume is the identity (Of) the mark was written for: a mark whose
	// Volume is not the disk's own was copied there, and is not trusted.
	Volume string `json:"volume"`
	// Data is the data folder of the RAMBar that made the disk.
	Data string `json:"data"`
	// UID is the user that RAMBar ran as; User its login name when known.
	UID  int    `json:"uid"`
	User string `json:"user,omitempty"`
	// Name is the disk's name; Kind what it is (KindPlain, ...).
	Name string `json:"name"`
	Kind string `json:"kind"`
	// ID is the store id of a kept or mirrored disk ("" for others).
	ID string `json:"id,omitempty"`
}

// maxMark bounds a mark: anything longer was not written by RAMBar.
const maxMark = 4096

// ErrNoMark: the disk carries no mark RAMBar can read.
var ErrNoMark = errors.New("no RAMBar mark")

// For reports whether the mark was written for the disk mounted at dir (its
// Volume is dir's identity now).
func (m Mark) For(dir string) bool {
	id, err := Of(dir)
	return err == nil && m.Volume != "" && m.Volume == id
}

// Owner names who made the disk, for messages: "the data folder D of user
// U (uid N)".
func (m Mark) Owner() string {
	who := "uid " + strconv.Itoa(m.UID)
	if m.User != "" {
		who = m.User + " (" + who + ")"
	}
	return fmt.Sprintf("the data folder %s of user %s", m.Data, who)
}

// NewMark is the mark of a disk mounted at dir made now by this process
// with data folder data.
func NewMark(dir, data, name, kind, id string) (Mark, error) {
	vol, err := Of(dir)
	if err != nil {
		return Mark{}, err
	}
	return Mark{Volume: vol, Data: data, UID: os.Geteuid(), User: userName(), Name: name, Kind: kind, ID: id}, nil
}

// userName is this process's user's login name ("" when unknown), looked
// up once.
var userName = sync.OnceValue(func() string {
	if u, err := user.LookupId(strconv.Itoa(os.Geteuid())); err == nil {
		return u.Username
	}
	return ""
})

// ReadMark reads the mark on the root folder dir; ErrNoMark when there is
// none (or none this process may read), an error for one that is damaged.
func ReadMark(dir string) (Mark, error) {
	b, err := getMark(dir)
	if err != nil {
		return Mark{}, err
	}
	var m Mark
	if err := json.Unmarshal(b, &m); err != nil {
		return Mark{}, fmt.Errorf("RAMBar mark on %s is damaged: %w", dir, err)
	}
	if err := m.check(); err != nil {
		return Mark{}, fmt.Errorf("RAMBar mark on %s is damaged: %w", dir, err)
	}
	return m, nil
}

// check refuses marks RAMBar would not write.
func (m Mark) check() error {
	switch {
	case m.Volume == "" || len(m.Volume) > 512:
		return errors.New("no volume")
	case !filepath.IsAbs(m.Data) || filepath.Clean(m.Data) != m.Data:
		return fmt.Errorf("data folder %q", m.Data)
	case m.UID < 0:
		return fmt.Errorf("uid %d", m.UID)
	case m.Kind != KindPlain && m.Kind != KindKept && m.Kind != KindMirror && m.Kind != KindTry:
		return fmt.Errorf("kind %q", m.Kind)
	case (m.Kind == KindKept || m.Kind == KindMirror) != (m.ID != ""):
		return fmt.Errorf("kind %s with id %q", m.Kind, m.ID)
	}
	return nil
}

// WriteMark writes m on the root folder dir, replacing any mark there.
// ErrNoMark when the file system keeps no extended attributes this process
// may set (then the data folder's record alone knows the disk).
func WriteMark(dir string, m Mark) error {
	if err := m.check(); err != nil {
		return fmt.Errorf("write RAMBar mark on %s: %w", dir, err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if len(b) > maxMark {
		return fmt.Errorf("write RAMBar mark on %s: %d bytes, at most %d", dir, len(b), maxMark)
	}
	return setMark(dir, b)
}

// RemoveMark removes the mark from the root folder dir (none there: nil).
func RemoveMark(dir string) error { return removeMark(dir) }
