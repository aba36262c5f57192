package tree

// ReadLease: macOS has no leases; a file written recently is copied once
// it has been left alone a while (snapshot's quietFor).
func ReadLease(int) (granted, writer bool) { return false, false }
