package mirror

import (
	"sort"
	"testing"
)

func TestPathLessPutsFoldersBeforeTheirContents(t *testing.T) {
	got := []string{"a.b", "a/b", ".", "a", "a-b/c", "a/b/c", "b", "a0"}
	sort.Slice(got, func(i, j int) bool { return pathLess(got[i], got[j]) })
	want := []string{".", "a", "a/b", "a/b/c", "a-b/c", "a.b", "a0", "b"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order = %v, want %v", got, want)
		}
	}
}
