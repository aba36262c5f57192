package keeper

import (
	"path/filepath"

	"rambar/mirrorfolder"
	"rambar/snapstore"

	"rambar/ramdisk"
)

// ErrClaimed: the folder is already mirrored by another mounted disk (see
// mirrorfolder.ErrClaimed).
var ErrClaimed = mirrorfolder.ErrClaimed

// FoldersOverlap: folders a and b, once cleaned, are the same folder or
// one is inside the other (one folder, one disk; mirrorfolder.FoldersOverlap).
func FoldersOverlap(a, b string) bool { return mirrorfolder.FoldersOverlap(a, b) }

// claims are the data folder's claims (DATA/claims, package mirrorfolder):
// which mounted disk mirrors a folder, live while that disk is.
func (k *Keeper) claims() mirrorfolder.Claims {
	return mirrorfolder.Claims{Dir: filepath.Join(k.Data, "claims"), Live: k.live}
}

// live: the claiming disk is mounted where it was, with its marker.
func (k *Keeper) live(c mirrorfolder.Claim) bool {
	if k.IsMounted != nil && !k.IsMounted(c.MountPoint) {
		return false
	}
	if rec, ok := k.registry().Get(c.Disk); ok && rec.MountPoint == c.MountPoint && rec.Live() {
		return rec.ID == c.DiskID
	}
	return legacyMarker(c.MountPoint, snapstore.MaxSmall) == c.DiskID // an older RAMBar's disk
}

// CheckClaim refuses a folder that a mounted disk other than name mirrors
// (the same folder, or one inside or around it), naming that disk.
func (k *Keeper) CheckClaim(name, folder string) error { return k.claims().Check(name, folder) }

// claim takes the folder for disk st mounted at v, refusing when another
// live disk holds it. The marker must be on the disk already.
func (k *Keeper) claim(st State, v ramdisk.Volume) error {
	return k.claims().Take(mirrorfolder.Claim{Disk: st.Name, DiskID: st.ID, MountPoint: v.MountPoint, Folder: st.MirrorPath})
}

// Release drops the claims of disk name (after it was ejected).
func (k *Keeper) Release(name string) error { return k.claims().Release(name) }
