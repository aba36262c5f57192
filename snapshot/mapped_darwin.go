package snapshot

import (
	"context"
	"time"

	"rambar/internal/run"
)

// mappedFiles returns the inodes of the files on the volume mounted at
// root that a running process maps, as lsof lists them (lsofMapped): macOS
// cannot tell a shared writable mapping from another here, so each is
// compared by content. lsof exits 1 when it finds nothing; a failure to
// run it finds nothing either, within ten seconds.
func mappedFiles(root string) map[uint64]bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := run.System().Run(ctx, run.Cmd{Argv: []string{"lsof", "-n", "-P", "-w", "-F", "fi", "+f", "--", root}})
	if err != nil && run.ExitCode(err) != 1 {
		return map[uint64]bool{}
	}
	return lsofMapped(res.Stdout)
}
