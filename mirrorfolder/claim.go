package mirrorfolder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/i18n"
	"rambar/internal/record"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// ErrClaimed: the folder is already mirrored by another mounted disk.
var ErrClaimed = i18n.New("folder already mirrored")

// A Claim says which disk mirrors a folder: one file per folder in
// DATA/claims, named after the folder's real path, device and inode. It is
// held while the disk is mounted, across processes: a claim whose disk is
// no longer mounted at its mount point with its marker is stale and is
// taken over. Claims are read and written under DATA/claims/lock.
type Claim struct {
	Disk       string `json:"disk"`
	DiskID     string `json:"disk_id"`
	MountPoint string `json:"mount_point"`
	Folder     string `json:"folder"`
	Dev        uint64 `json:"dev"`
	Ino        uint64 `json:"ino"`
}

// Claims are a data folder's claims, one disk per folder.
type Claims struct {
	// Dir is the folder of the claims, DATA/claims.
	Dir string
	// Live tells whether a claim's disk is still mounted where it was,
	// with its marker (the Keeper knows which disk is whose); a claim
	// that is not live is stale.
	Live func(Claim) bool
}

// lock takes the claims lock (record.Lock: waits until it is free).
func (cs Claims) lock() (func(), error) {
	_, release, err := record.Lock(context.Background(), filepath.Join(cs.Dir, "lock"), -1)
	if err != nil {
		return nil, tree.NoSpace(fmt.Errorf("claims: %w", err))
	}
	return release, nil
}

// all reads every claim file (bounded; unreadable ones are skipped).
func (cs Claims) all() map[string]Claim {
	out := map[string]Claim{}
	record.Kind{Dir: cs.Dir, ByID: true}.Each(func(p string, b []byte) {
		var c Claim
		if json.Unmarshal(b, &c) == nil && c.Disk != "" {
			out[filepath.Base(p)] = c
		}
	})
	return out
}

// identify returns a folder's identity: real path, device and inode (zero
// for a folder not made yet).
func identify(folder string) (real string, dev, ino uint64) {
	real = realOf(filepath.Clean(folder))
	var st unix.Stat_t
	if unix.Stat(real, &st) == nil {
		dev, ino = uint64(st.Dev), uint64(st.Ino)
	}
	return real, dev, ino
}

func claimFile(real string, dev, ino uint64) string {
	s := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", real, dev, ino)))
	return hex.EncodeToString(s[:12]) + ".json"
}

// overlaps: the same folder, or one inside the other.
func overlaps(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// FoldersOverlap: folders a and b, once cleaned, are the same folder or
// one is inside the other (one folder, one disk).
func FoldersOverlap(a, b string) bool { return overlaps(filepath.Clean(a), filepath.Clean(b)) }

// holder returns the live claim of another disk than name on folder, or on
// a folder inside or around it.
func (cs Claims) holder(name, folder string) (Claim, bool) {
	real, dev, ino := identify(folder)
	for _, c := range cs.all() {
		if c.Disk == name {
			continue
		}
		// The claimed folder as it is now: the folder may have been moved
		// away or replaced since it was claimed, so the inode recorded then
		// may be free and reused by an unrelated folder.
		_, cdev, cino := identify(c.Folder)
		same := overlaps(c.Folder, real) || (ino != 0 && cdev == dev && cino == ino)
		if same && cs.Live(c) {
			return c, true
		}
	}
	return Claim{}, false
}

// Check refuses a folder that a mounted disk other than name mirrors
// (the same folder, or one inside or around it), naming that disk.
func (cs Claims) Check(name, folder string) error {
	unlock, err := cs.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if c, ok := cs.holder(name, folder); ok {
		return claimedErr(folder, c)
	}
	return nil
}

func claimedErr(folder string, c Claim) error {
	return fmt.Errorf("%w: %s is mirrored by the disk %s (mounted at %s, mirroring %s); eject it first",
		ErrClaimed, folder, c.Disk, c.MountPoint, c.Folder)
}

// Take takes the folder c.Folder for the disk c names (Disk, DiskID,
// MountPoint), refusing when another live disk holds it; the claim
// records the folder's real path, device and inode. The disk's other
// claims are dropped. The marker must be on the disk already.
func (cs Claims) Take(c Claim) error {
	unlock, err := cs.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if h, ok := cs.holder(c.Disk, c.Folder); ok {
		return claimedErr(c.Folder, h)
	}
	cs.drop(c.Disk)
	c.Folder, c.Dev, c.Ino = identify(c.Folder)
	return tree.NoSpace(record.WriteJSON(filepath.Join(cs.Dir, claimFile(c.Folder, c.Dev, c.Ino)), c))
}

// Release drops the claims of disk name (after it was ejected).
func (cs Claims) Release(name string) error {
	unlock, err := cs.lock()
	if err != nil {
		return err
	}
	defer unlock()
	cs.drop(name)
	return nil
}

func (cs Claims) drop(name string) {
	for f, c := range cs.all() {
		if c.Disk == name {
			os.Remove(filepath.Join(cs.Dir, f))
		}
	}
}
