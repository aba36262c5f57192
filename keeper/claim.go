package keeper

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/foldersync"
	"rambar/i18n"
	"rambar/internal/record"
	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// ErrClaimed: the folder is already mirrored by another mounted disk.
var ErrClaimed = i18n.New("folder already mirrored")

// A claim says which disk mirrors a folder: one file per folder in
// DATA/claims, named after the folder's real path, device and inode. It is
// held while the disk is mounted, across processes: a claim whose disk is
// no longer mounted at its mount point with its marker is stale and is
// taken over. Claims are read and written under DATA/claims/lock.
type claim struct {
	Disk       string `json:"disk"`
	DiskID     string `json:"disk_id"`
	MountPoint string `json:"mount_point"`
	Folder     string `json:"folder"`
	Dev        uint64 `json:"dev"`
	Ino        uint64 `json:"ino"`
}

func (k *Keeper) claimsDir() string { return filepath.Join(k.Data, "claims") }

// lockClaims takes the claims lock (record.Lock: waits until it is free).
func (k *Keeper) lockClaims() (func(), error) {
	_, release, err := record.Lock(context.Background(), filepath.Join(k.claimsDir(), "lock"), -1)
	if err != nil {
		return nil, tree.NoSpace(fmt.Errorf("claims: %w", err))
	}
	return release, nil
}

// claims reads every claim file (bounded; unreadable ones are skipped).
func (k *Keeper) claims() map[string]claim {
	out := map[string]claim{}
	record.Kind{Dir: k.claimsDir(), ByID: true}.Each(func(p string, b []byte) {
		var c claim
		if json.Unmarshal(b, &c) == nil && c.Disk != "" {
			out[filepath.Base(p)] = c
		}
	})
	return out
}

// live: the claiming disk is mounted where it was, with its marker.
func (k *Keeper) live(c claim) bool {
	if k.IsMounted != nil && !k.IsMounted(c.MountPoint) {
		return false
	}
	if rec, ok := k.registry().Get(c.Disk); ok && rec.MountPoint == c.MountPoint && rec.Live() {
		return rec.ID == c.DiskID
	}
	return legacyMarker(c.MountPoint, snapstore.MaxSmall) == c.DiskID // an older RAMBar's disk
}

// identify returns a folder's identity: real path, device and inode (zero
// for a folder not made yet).
func identify(folder string) (real string, dev, ino uint64) {
	real = foldersync.RealOf(filepath.Clean(folder))
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
func (k *Keeper) holder(name, folder string) (claim, bool) {
	real, dev, ino := identify(folder)
	for _, c := range k.claims() {
		if c.Disk == name {
			continue
		}
		// The claimed folder as it is now: the folder may have been moved
		// away or replaced since it was claimed, so the inode recorded then
		// may be free and reused by an unrelated folder.
		_, cdev, cino := identify(c.Folder)
		same := overlaps(c.Folder, real) || (ino != 0 && cdev == dev && cino == ino)
		if same && k.live(c) {
			return c, true
		}
	}
	return claim{}, false
}

// CheckClaim refuses a folder that a mounted disk other than name mirrors
// (the same folder, or one inside or around it), naming that disk.
func (k *Keeper) CheckClaim(name, folder string) error {
	unlock, err := k.lockClaims()
	if err != nil {
		return err
	}
	defer unlock()
	if c, ok := k.holder(name, folder); ok {
		return claimedErr(folder, c)
	}
	return nil
}

func claimedErr(folder string, c claim) error {
	return fmt.Errorf("%w: %s is mirrored by the disk %s (mounted at %s, mirroring %s); eject it first",
		ErrClaimed, folder, c.Disk, c.MountPoint, c.Folder)
}

// claim takes the folder for disk st mounted at v, refusing when another
// live disk holds it. The marker must be on the disk already.
func (k *Keeper) claim(st State, v ramdisk.Volume) error {
	unlock, err := k.lockClaims()
	if err != nil {
		return err
	}
	defer unlock()
	if c, ok := k.holder(st.Name, st.MirrorPath); ok {
		return claimedErr(st.MirrorPath, c)
	}
	k.dropClaims(st.Name)
	real, dev, ino := identify(st.MirrorPath)
	c := claim{Disk: st.Name, DiskID: st.ID, MountPoint: v.MountPoint, Folder: real, Dev: dev, Ino: ino}
	return tree.NoSpace(record.WriteJSON(filepath.Join(k.claimsDir(), claimFile(real, dev, ino)), c))
}

// Release drops the claims of disk name (after it was ejected).
func (k *Keeper) Release(name string) error {
	unlock, err := k.lockClaims()
	if err != nil {
		return err
	}
	defer unlock()
	k.dropClaims(name)
	return nil
}

func (k *Keeper) dropClaims(name string) {
	for f, c := range k.claims() {
		if c.Disk == name {
			os.Remove(filepath.Join(k.claimsDir(), f))
		}
	}
}
