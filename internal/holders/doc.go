// Package holders finds the processes that keep a mounted file system busy,
// from /proc: one rule for the Linux engine's busy eject and mirror's reclaim.
// It matches by device number, so a file opened through another path to the
// same mount (a bind mount, a renamed folder) or a deleted file still counts;
// and, for a file system that may be gone, by its own id as well
// (diskid.FSID), since a freed device number is given to the next file
// system.
// Other systems have no /proc; there the package is empty and callers ask the
// OS's own tool (lsof on macOS, in the darwin engine).
package holders
