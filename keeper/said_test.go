package keeper

import (
	"testing"

	"rambar/internal/diskid"
)

// TestOwnerSaysMarksOwner: who made a disk, as Whose says it for the
// user's language, reads in English as the mark's Owner.
func TestOwnerSaysMarksOwner(t *testing.T) {
	for _, m := range []diskid.Mark{{Data: "/home/u/.local/share/rambar", UID: 1000, User: "u"}, {Data: "/d", UID: 0}} {
		if got := owner(m); got.Text != m.Owner() || got.Format == "" {
			t.Errorf("owner %+v, want %q", got, m.Owner())
		}
	}
}
