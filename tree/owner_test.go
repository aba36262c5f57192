package tree

import "testing"

func TestSudoerOf(t *testing.T) {
	cases := []struct {
		name     string
		root     bool
		uid, gid string
		want     sudoer
	}{
		{"root under sudo", true, "1000", "1001", sudoer{Uid: 1000, Gid: 1001, Ok: true}},
		{"not root", false, "1000", "1001", sudoer{}},
		{"no SUDO_UID", true, "", "1001", sudoer{}},
		{"no SUDO_GID", true, "1000", "", sudoer{}},
		{"not a number", true, "10x", "1001", sudoer{}},
		{"negative", true, "-1", "1001", sudoer{}},
		{"the 'no owner' value", true, "4294967295", "1", sudoer{}},
		{"too large", true, "4294967296", "1", sudoer{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"SUDO_UID": c.uid, "SUDO_GID": c.gid}
			if got := sudoerOf(c.root, func(k string) string { return env[k] }); got != c.want {
				t.Errorf("sudoerOf = %+v, want %+v", got, c.want)
			}
		})
	}
}
