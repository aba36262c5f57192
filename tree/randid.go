package tree

import (
	"crypto/rand"
	"encoding/hex"
)

// RandomID is 32 hex digits from the system's random source: a store's
// ID, the suffix of a temporary name.
func RandomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
