package foldersync

import "strings"

// A git repository in a Mirror folder keeps its own state under .git/:
// the index, refs, logs, ORIG_HEAD, FETCH_HEAD, COMMIT_EDITMSG, packs and
// the lock files git holds while it writes them. Git rewrites these on
// both sides (a commit in the folder, a git status on the disk refreshing
// the index), so they would often change on both, and a conflict copy
// inside .git/ (index.rambar-conflict-….lock, a stray ref) confuses git
// or is taken for a ref. The rule, for every path inside a folder named
// .git at any depth:
//
//   - a lock file (a name ending in .lock) is never copied either way:
//     not loaded, not written back, not taken by a refresh, not counted
//     as a change kept in the folder; each side keeps its own;
//   - a path changed on both sides is the folder's: its version stays in
//     the folder without a conflict copy, and a refresh puts it on the
//     disk; the disk's version stays in the snapshot the save made, and
//     the write-back's notice says so;
//   - a path changed on one side only goes across as any other path.

// inGit: p lies inside a folder named .git.
func inGit(p string) bool {
	return strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/")
}

// gitLock: p is a lock file git holds inside .git while it writes.
func gitLock(p string) bool { return inGit(p) && strings.HasSuffix(p, ".lock") }

// gitNote is the notice of a path of .git/ changed on both sides.
const gitNote = "git's own state, changed on both sides: the folder's version is kept (no conflict copy inside .git); " +
	"the disk's is in the snapshot this save made, and a refresh puts the folder's on the disk"

// gitRule applies the rule above to a write-back's decision.
func (it *planItem) gitRule() {
	switch {
	case gitLock(it.Path):
		it.op, it.Aside, it.Conflict, it.Outside, it.DeletedOutside = opNone, false, "", false, false
	case !inGit(it.Path) || it.Conflict == "":
	case it.op == opCopy || it.Aside || it.op == opPut && it.F == nil:
		it.op, it.Aside, it.Conflict = opNone, false, gitNote
	}
}
