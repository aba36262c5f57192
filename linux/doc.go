// Package linux is RAMBar's Linux engine: RAM disks as tmpfs mounts, or as
// compressed zram block devices holding ext4, mounted under a mount root
// (/mnt/rambar by default). As root it mounts with system calls; for a
// desktop user every privileged step is one `pkexec TOOL ARGS`. A disk is
// mounted on the folder that was checked, through its descriptor, never on
// a path another user could swap meanwhile (mounttarget.go).
//
// The parsers (mount table, /proc/meminfo, zram mm_stat) have no build tag,
// so they are tested on every OS; the engine itself is Linux only.
package linux
