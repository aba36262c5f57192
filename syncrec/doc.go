// Package syncrec is a Mirror disk's sync record on real storage: what the
// disk and its folder held the last time they were brought together (the
// load, then each write-back and refresh), per path the folder's version
// (its identity, so an unchanged file is known without reading it, and its
// content hash) and the disk's (its store object, content hash and
// metadata), with the header that says whose record it is, of which
// snapshot, and whether a load finished (Complete: a disk whose load was
// cut short is never written back). It owns the record's types, its
// binary files and their one encoder and decoder, the base read block by
// block, and the store, open, commit and compaction of the record.
//
// The record lives in the store's mirror/ folder, in the store's binary
// codec (package snapstore's), so paths are kept as the bytes they are
// (names that are not UTF-8 too):
//
//	mirror/sync      the header (disk, folder, snapshot, complete, base)
//	                 and the paths changed since the base (a delta), with
//	                 checksums; replaced atomically and durably by each
//	                 write-back: the record's commit point
//	mirror/base-ID   every path, sorted, in blocks of blockPaths with an
//	                 index of the blocks at its end, so a write-back reads
//	                 only the blocks of the paths it looks at; immutable,
//	                 rewritten (compaction) once the delta passes an eighth
//	                 of it
//
// Records written before (mirror-sync.json, with mirror-sync.head) still
// load; the next write-back replaces them. Everything it reads is bounded
// and checked as it is read (the sync file's decoder is fuzzed): a damaged
// record is refused (ErrDamaged), never half read.
//
// It knows nothing of what the record is for: package foldersync reads it
// to tell who changed what (the write-back) and what the folder changed
// (the refresh), and gives the paths to keep (a load's, a write-back's or
// a refresh's); its lists of temporary names (mirror/pending,
// mirror/refresh-pending) share the record's folder (Dir). It never takes
// the store's lock (the Keeper, package keeper, holds it around each
// sync and writes the record of a load and of a write-back).
//
// # Files
//
//	record.go       sides, paths, the header; the record of before (JSON)
//	codec.go        the sync file and a path in the binary codec
//	base.go         a base file: written in blocks, read block by block
//	store.go        open, walk, write, commit, update (the delta, compaction)
package syncrec
