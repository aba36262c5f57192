package tree

// Became makes s the version id of its file that a copy found after the
// scan (the same path and inode, written since): its identity, and its
// modification time with it.
func (s *Scanned) Became(id Ident) {
	n := id.MTime - s.mtimeSec*1e9
	sec := n / 1e9
	if n%1e9 < 0 {
		sec--
	}
	s.Id, s.mtimeSec = id, s.mtimeSec+sec
}
