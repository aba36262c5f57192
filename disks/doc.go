// Package disks holds the use cases both front ends run: the CLI (package
// main) and the menu (package tray) make, eject, save, refresh, restore and reclaim
// disks, and mount presets, only through it. Each operation on one disk
// holds that disk's lock, across processes, so a save never meets an eject
// and two creates of one name never stack two disks on one mount point.
//
// Nothing here prints: operations return results, report progress through a
// ramdisk.ProgressFunc and tell events (the plan, before a disk is made)
// through callbacks; the front ends decide what to show.
//
// # Files in the data folder
//
// Besides the keeper's stores (package mirror), disks keeps, under
// RAMBar's data folder, with KEY the disk's name folded to lower case and
// escaped (lockName), and NAME its exact name escaped (recordKey: on Linux
// names that differ only in case are two disks):
//
//	locks/KEY.lock         the per-disk flock; never removed
//	options/NAME.json      the extras the disk was made with (volopts.go)
//	restoring/NAME.json    a restore or load that has not finished: the disk
//	                       is "incomplete" and never saved over its copy
//	made/HASH.json         the disks this data folder made, with their
//	                       volume's identity (internal/diskid; written by
//	                       the keeper): eject, eject --all, bench and the
//	                       menu's Eject All act on these, and refuse or
//	                       leave alone the others (identity.go)
//	reclaiming/KEY.json    a reclaim that has not finished: the disk as it
//	                       was (its volume's identity), the last step taken
//	                       and the sum of what the disk held, so that
//	                       ResumeReclaim (or the next Create) finishes or
//	                       undoes it from the staging copy in reclaim/
//	                       (resume.go says what each step allows)
//
// The records are written whole (temp file and rename) and read as untrusted input:
// bounded, and a damaged record errs on the side of keeping data.
package disks
