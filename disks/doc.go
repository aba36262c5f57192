// Package disks holds the use cases both front ends run: the CLI (package
// main) and the menu (package tray) make, eject, save, restore and reclaim
// disks, and mount presets, only through it. Each operation on one disk
// holds that disk's lock, across processes, so a save never meets an eject
// and two creates of one name never stack two disks on one mount point.
//
// Nothing here prints: operations return results, report progress through a
// ramdisk.ProgressFunc and tell events (the plan, before a disk is made)
// through callbacks; the front ends decide what to show.
package disks
