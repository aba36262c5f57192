// Package testdigest compares trees in tests: the content digest of a tree
// (tree.DigestOf, with times) and the differences between two, reported
// on the test. It is for tests only; nothing else imports it (package
// tree's own tests cannot: it imports tree).
package testdigest

import (
	"testing"

	"rambar/tree"
)

// Of is the digest of the tree at root, with times; it fails t on error.
func Of(t testing.TB, root string) tree.Digest {
	t.Helper()
	d, err := tree.DigestOf(root, true)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Same reports on t every path (at most ten) where got differs from want.
func Same(t testing.TB, want, got tree.Digest) {
	t.Helper()
	for _, p := range want.Diff(got, 10) {
		t.Errorf("%s:\n want %s\n  got %s", p, want[p], got[p])
	}
}
