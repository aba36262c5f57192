package ramdisk

import "context"

// Mount is one mount of a disk's file system: its own mount point, a cover
// over a folder (Mirror in place), or any other bind of it.
type Mount struct {
	// Point is where it is mounted.
	Point string
	// ID tells this mount from one made later at the same place (Linux:
	// the mount ID and the device); "" where the engine has none.
	ID string
}

// MountTracer is an engine that tells every mount of a disk, so an eject
// says "Ejected" only when the mount table agrees: disks reads MountsOf
// before the eject and StillMounted after it. An engine without it is
// checked by its List.
type MountTracer interface {
	// MountsOf lists every mount of v's file system now; none when
	// nothing is mounted at v's mount point.
	MountsOf(ctx context.Context, v Volume) ([]Mount, error)
	// StillMounted returns those of ms that are in the mount table now
	// (the same mounts, not ones made since at the same places).
	StillMounted(ctx context.Context, ms []Mount) ([]Mount, error)
}
