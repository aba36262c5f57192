package localapi

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
)

// Place is where the agent of one data folder listens: the socket Name in
// the folder Dir, which is the user's alone (0700).
type Place struct {
	Dir  string
	Name string
}

// Path is the socket's path.
func (p Place) Path() string { return filepath.Join(p.Dir, p.Name) }

// ErrNoPlace: no data folder (HOME is not set), so no agent either.
var ErrNoPlace = errors.New("no place for the agent's socket: no data folder")

// PlaceFor is the socket of the agent of data folder data for this user:
// on Linux in the runtime folder ($XDG_RUNTIME_DIR, else /run/user/UID
// when it is the user's), rambar/agent-HASH.sock with HASH of the data
// folder; elsewhere, and without a runtime folder, DATA/run/agent.sock.
// The agent and its clients compute it alike.
func PlaceFor(goos string, getenv func(string) string, data string) (Place, error) {
	if data == "" {
		return Place{}, ErrNoPlace
	}
	data = filepath.Clean(data)
	if goos == "linux" {
		if rt := runtimeDir(getenv); rt != "" {
			sum := sha256.Sum256([]byte(data))
			return Place{Dir: filepath.Join(rt, "rambar"), Name: "agent-" + hex.EncodeToString(sum[:8]) + ".sock"}, nil
		}
	}
	return Place{Dir: filepath.Join(data, "run"), Name: "agent.sock"}, nil
}

// runtimeDir is the user's runtime folder: $XDG_RUNTIME_DIR when it is
// absolute, else /run/user/UID when it exists and is the user's; "" for
// none.
func runtimeDir(getenv func(string) string) string {
	if rt := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		return filepath.Clean(rt)
	}
	rt := "/run/user/" + strconv.Itoa(os.Geteuid())
	if owned(rt) {
		return rt
	}
	return ""
}
