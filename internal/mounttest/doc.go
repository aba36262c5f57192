// Package mounttest puts other file systems inside a disk for the tests of
// RAMBar's removals (restore, reclaim, refresh, eject, forget): a bind
// mount of a folder outside the disk, a second tmpfs, and an ext4 image
// mounted through a loop device. Each holds files of its own that nothing
// RAMBar does may touch, and each mount is taken down when the test ends
// (umount -l). Linux only, as root.
package mounttest
