// Package diskid tells one mounted RAM disk from another, now and later on
// this machine, without a file in the disk's tree (which the user's own
// tools delete, copy and commit: git clean -fdx, rm -rf, cp -a, git add -A).
//
// Three parts:
//
//   - A volume's identity (Of): the file system instance mounted at a
//     folder, as the kernel tells it within one boot: the boot's id, the
//     device number, the root folder's inode, the file system's id, the
//     root's file handle and its birth time. A tmpfs made again at the same
//     place gets the same device number and, within a few milliseconds, the
//     same birth time, but another random file system id and inode
//     generation; after a reboot the boot id differs.
//     On macOS the engine adds the volume UUID diskutil reports, which is
//     the volume's own (ramdisk.Volume.Identity); Of is what any process can
//     tell without running a tool.
//   - The mark (ReadMark, WriteMark): an extended attribute on the disk's
//     root folder (Linux user.rambar, or trusted.rambar as root where user
//     attributes are refused; macOS com.rambar.disk) naming the data folder
//     and user that made the disk, the store it keeps (if any), and the
//     identity it was written for. It is not in the tree: git, Finder and
//     ls do not show it, git clean and rm -rf at the root do not remove it,
//     and no save, load or write-back copies it (mirror leaves it out of
//     every xattr it keeps). A mark copied onto another disk (cp -a of a
//     root, a restore of an old xattr) names an identity that is not that
//     disk's, so it is not trusted (Mark.For).
//   - The record (Registry): the data folder's own list of the disks it
//     made, by name, with their identity. It is what RAMBar trusts first;
//     the mark tells other data folders and other users whose a disk is,
//     and puts the record back if the data folder lost it.
//
// Files the registry keeps, under DATA/made/: KEY.json per disk name (KEY:
// the name by the one rule of internal/record; an older RAMBar's key, a
// hash of the name, is still read), written whole (temp file and rename),
// read as untrusted input (bounded, checked).
package diskid
