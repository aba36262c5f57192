// Package testtree writes the small trees tests read: files under a root,
// their folders made as needed. It is for tests only; nothing else imports
// it.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes data to root/rel, making its folders, and fails t on error.
func Write(t testing.TB, root, rel, data string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
