// Package snapstore is one disk's store of snapshots on real storage: the
// folder disks/NAME of the app's data folder (its layout in package
// mirror's doc), with the objects and packs that hold file contents, the
// manifests that list a snapshot's paths (versions 1 to 4, full or a delta
// on a full base) and their one encoder and decoder, the index of the
// disk's paths as of the last save or restore, the label of a snapshot
// taken while the disk was in use and of a safety snapshot, the lock, the commit that flips current
// atomically, cleanup and prune.
//
// Everything it reads may have been crafted by someone else with access
// to the data folder: manifests, the index and the in-use labels are
// bounded and checked as they are read (validate.go; the decoders are
// fuzzed, their seeds in testdata/fuzz), and every manifest is checked
// with the same rules as it is written (treecheck.go).
//
// It never reads a disk or a mirror folder (the scan and the copies are
// package tree's, a save's plan and a restore's build package snapshot's),
// and it knows nothing of Mirror folders, the Keeper or the use cases.
//
// # Files
//
//	store.go                      the folder: lock, current, commit, manifests on disk, cleanup
//	manifest.go, codec.go         manifest types, deltas; the one encoder and decoder
//	codec4.go, decode4.go         version 4 manifests (the current format)
//	index.go, indexcodec.go       the index, its codec, a scan's match with it
//	objects.go                    object names and references, packs
//	validate.go, treecheck.go     checks of everything read; manifests as written
//	inuserec.go                   the label of a snapshot taken while in use
//	safety.go, lacks.go           the label of a safety snapshot (pruned last); what a folder lacks
//	prune.go                      which snapshots and objects a save removes
package snapstore
