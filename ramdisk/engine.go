package ramdisk

import (
	"context"
	"strings"
	"time"
)

// Engine makes, lists, measures and removes RAM disks on one platform. Every
// method takes a context; cancelling it stops waiting on tools, it does not undo
// steps already done (each method says what it leaves behind).
//
// Engines carry out Plans made by NewPlan; they do not decide sizes or names.
// They map tool failures onto the sentinel errors of this package and keep the
// tool's own words in the wrapped error.
type Engine interface {
	// Caps describes what this engine can do on this machine.
	Caps() Caps

	// Create makes the disk described by p, mounted and ready, and returns it.
	// Partial failure: Create never leaves a half-made disk behind. If a step
	// after the device exists fails (format, mount, permissions), the device is
	// removed before Create returns, and the error carries the failing tool's
	// words. If that cleanup also fails, both errors are returned joined.
	// With p.CacheFallback set, the fallback link is below the mount point
	// before the disk is mounted, or Create fails.
	Create(ctx context.Context, p Plan) (Volume, error)

	// List returns the RAM disks mounted now, made by RAMBar or by hand
	// (Finder, hdiutil, mount -t tmpfs under RAMBar's mount root), sorted by
	// name. A disk that disappears while being listed is left out, not an error.
	List(ctx context.Context) ([]Volume, error)

	// Eject unmounts v and frees its memory. A busy volume gives a *BusyError
	// naming the holders, and nothing changes; with force the volume is
	// unmounted anyway (macOS: diskutil eject force; Linux: lazy unmount). A
	// volume that is already gone gives ErrNotFound. Partial failure: if the
	// volume was unmounted but the device could not be freed, the error says so
	// and a later Eject of the same volume finishes the job.
	Eject(ctx context.Context, v Volume, force bool) error

	// Usage measures v now: bytes used on the file system and the memory it
	// really holds. It is cheap enough for a menu refresh except where Caps
	// says HeldIsCostly.
	Usage(ctx context.Context, v Volume) (Usage, error)

	// Memory reports the whole machine's memory: physical, free, compressed,
	// swap.
	Memory(ctx context.Context) (Memory, error)
}

// Prechecker is an engine that can tell, changing nothing, whether Create
// would refuse p for its mount point (taken, not empty, another user's), so
// a plan is shown only once it can be carried out.
type Prechecker interface {
	Precheck(ctx context.Context, p Plan) error
}

// Detacher is an engine whose forced eject of a busy disk takes it out of
// the file tree at once but frees its memory only when the last process
// holding it lets go (Linux: a lazy unmount). It tells who still holds such
// a disk, so it is never shown as gone while it still takes memory.
type Detacher interface {
	// DeviceID names the file system of the mounted disk v until the
	// kernel frees it (Linux: "major:minor"); "" when it cannot be told.
	DeviceID(v Volume) string
	// StillHeld lists the processes that hold the file system id and the
	// memory it takes; gone is true once it was freed.
	StillHeld(ctx context.Context, id string) (holders []Holder, held Size, gone bool)
}

// MountPointDropper is an engine whose mount points outlive their disks
// (Caps.KeepsMountPoints). DropMountPoint removes the folder it makes for
// disk name under its mount root, best effort, as its Eject does: only
// when nothing is mounted there and the folder holds nothing but a
// fallback link that leads nowhere (the disk's last cache was switched
// off). A folder of the user's (--mount-point) is never its to remove.
type MountPointDropper interface {
	DropMountPoint(ctx context.Context, name string)
}

// Caps describes an engine.
type Caps struct {
	OS           string       // "darwin", "linux"
	FileSystems  []FileSystem // what Create accepts, default first
	NeedsAdmin   []FileSystem // file systems that prompt for admin rights
	MountRoot    string       // where disks are mounted: /Volumes, /mnt/rambar
	HeldIsCostly bool         // Usage's Held figure costs a process launch (footprint)
	// LazyThreshold is the size from which memory is taken only as blocks are
	// written (macOS disk images: 4 GiB); 0 means always as written.
	LazyThreshold Size
	// TmpFSShare is the percentage of physical memory a tmpfs is cut to (macOS
	// mount_tmpfs: 50, silently); 0 means no such limit.
	TmpFSShare int `json:",omitempty"`
	// KeepsMountPoints is true where a folder under MountRoot can outlive
	// its disk (Linux /mnt/rambar), so a Plan.CacheFallback link can wait
	// there; false where the system removes it with the disk (/Volumes).
	KeepsMountPoints bool `json:"-"`
	// CaseSensitiveNames is true where names that differ only in letter
	// case are two disks, as the mount points are two folders (Linux).
	// False where they are one (macOS: /Volumes is case-insensitive, and a
	// second "scratch" would be mounted as "scratch 1").
	CaseSensitiveNames bool `json:"-"`
}

// SameName reports whether two disk names name the same disk here: equal
// on Linux, equal but for letter case on macOS (Caps.CaseSensitiveNames).
func (c Caps) SameName(a, b string) bool {
	if c.CaseSensitiveNames {
		return a == b
	}
	return strings.EqualFold(a, b)
}

// Supports reports whether the engine can make fs.
func (c Caps) Supports(fs FileSystem) bool {
	for _, f := range c.FileSystems {
		if f == fs {
			return true
		}
	}
	return false
}

// Volume is one mounted RAM disk.
type Volume struct {
	Name       string     `json:"name"`
	MountPoint string     `json:"mount_point"`
	Device     string     `json:"device"` // /dev/disk4 (the ram:// device), /dev/zram1, or the tmpfs source
	FS         FileSystem `json:"fs"`
	Size       Size       `json:"size_bytes"`
	Hidden     bool       `json:"hidden,omitempty"`
	// HelperPID is the diskimages-helper serving a macOS ram:// disk (0 when unknown).
	HelperPID int `json:"helper_pid,omitempty"`
	// Allocation is when the disk takes its memory.
	Allocation Allocation `json:"allocation"`
	// Managed is true for disks RAMBar made (a marker on the volume or the
	// mount root says so); hand-made ones are listed too.
	Managed bool `json:"managed"`
	// Identity tells this mounted volume from every other on this machine,
	// also one made again at the same place: macOS its volume UUID; Linux its
	// device, root inode and birth time within this boot (internal/diskid).
	// "" when the engine cannot tell; then diskid.Of(MountPoint) stands in.
	Identity string `json:"identity,omitempty"`
	// Notes records what is known and not known about this volume (e.g. "helper
	// pid unknown: attached with diskutil image"), each in English and as
	// made (Said), for the user's language; their JSON is their texts.
	// A note made with Warn (its text begins with WarningNote) is one the
	// user must see.
	Notes []Said `json:"notes,omitempty"`
}

// Usage is a volume's measurement at one moment.
type Usage struct {
	Size Size `json:"size_bytes"` // capacity of the file system
	Used Size `json:"used_bytes"` // bytes the files take
	Free Size `json:"free_bytes"` // bytes available
	// Held is the memory the disk really holds (macOS: the helper's footprint;
	// tmpfs: its pages; zram: mem_used_total). HeldKnown is false when it
	// could not be measured.
	Held      Size `json:"held_bytes"`
	HeldKnown bool `json:"held_known"`
	// Stored is the uncompressed data a compressed disk keeps (zram
	// orig_data_size); 0 elsewhere.
	Stored Size `json:"stored_bytes,omitempty"`
	// Files is the number of inodes in use, when known.
	Files int64     `json:"files,omitempty"`
	At    time.Time `json:"at"`
	// FreesDeleted is set where deleting a file gives its memory back at
	// once (a zram disk mounted with discard): nothing is pinned there,
	// whatever its file system's own records hold.
	FreesDeleted bool `json:"-"`
}

// Pinned is memory held beyond what the files use: what deleted files still
// pin on a macOS disk image (or a zram disk mounted without discard, where
// the data kept beyond the files' is counted in what it holds compressed).
// Never negative; 0 where deleting frees memory (FreesDeleted).
func (u Usage) Pinned() Size {
	switch {
	case !u.HeldKnown || u.FreesDeleted:
		return 0
	case u.Stored > 0:
		if u.Stored <= u.Used {
			return 0
		}
		return Size(float64(u.Held) * float64(u.Stored-u.Used) / float64(u.Stored))
	case u.Held <= u.Used:
		return 0
	}
	return u.Held - u.Used
}

// ReclaimThreshold is the pinned memory from which Reclaim is offered (it must
// also exceed ReclaimFraction of the disk's size).
const ReclaimThreshold = 256 * MiB

// ReclaimFraction is the share of the size that pinned memory must exceed.
const ReclaimFraction = 0.10

// ReclaimWorthwhile reports whether reclaiming would give back enough memory
// to be worth offering: over 256 MiB and over 10% of the size.
func (u Usage) ReclaimWorthwhile() bool {
	p := u.Pinned()
	return p > ReclaimThreshold && float64(p) > ReclaimFraction*float64(u.Size)
}

// FullFraction is the fill level from which a disk is reported nearly full.
const FullFraction = 0.90

// Fill returns used/size in [0,1].
func (u Usage) Fill() float64 {
	if u.Size <= 0 {
		return 0
	}
	return float64(u.Used) / float64(u.Size)
}

// NearlyFull reports a disk over 90% full.
func (u Usage) NearlyFull() bool { return u.Fill() > FullFraction }

// CompressionRatio is Stored/Held for a compressed disk, 0 when not known.
func (u Usage) CompressionRatio() float64 {
	if u.Stored <= 0 || !u.HeldKnown || u.Held <= 0 {
		return 0
	}
	return float64(u.Stored) / float64(u.Held)
}

// Memory is the whole machine's memory at one moment.
type Memory struct {
	Physical   Size `json:"physical_bytes"`
	Free       Size `json:"free_bytes"`       // free + reclaimable without paging (Linux MemAvailable)
	Compressed Size `json:"compressed_bytes"` // held by the compressor (macOS) or zram
	SwapTotal  Size `json:"swap_total_bytes"`
	SwapUsed   Size `json:"swap_used_bytes"`
	// Pressure is the OS's own word when it has one: "normal", "warn", "critical".
	Pressure string `json:"pressure,omitempty"`
}

// Swapping reports whether the machine has memory out in swap.
func (m Memory) Swapping() bool { return m.SwapUsed > 0 }

// NoSwap reports a machine with no swap at all (none configured on Linux;
// macOS adds swap files as it needs them, so it has some once it swaps).
// There the risk of filling memory is not swap but the out-of-memory
// killer, and RAMBar does not talk of swap.
func (m Memory) NoSwap() bool { return m.SwapTotal == 0 && m.SwapUsed == 0 }

// Overflow says what filling memory does on this machine, to finish
// "filling them …": "pushes memory to swap", or, with no swap, "leaves the
// system out of memory: its out-of-memory killer ends programs".
func (m Memory) Overflow() string {
	if m.NoSwap() {
		return "leaves the system out of memory: its out-of-memory killer ends programs"
	}
	return "pushes memory to swap"
}
