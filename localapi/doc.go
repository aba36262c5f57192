// Package localapi is the local API of a running RAMBar (the agent, or the
// menu-bar app, which is the agent with a menu): a Unix socket a CLI of the
// same user and data folder asks instead of doing the work itself, as
// tailscaled's. It knows nothing of RAMBar's verbs: it carries a command
// line to the agent and the command's output back.
//
// # Where
//
// One socket per user and data folder (Place): on Linux in
// $XDG_RUNTIME_DIR/rambar/ (or /run/user/UID/rambar/ when the variable is
// not set and that folder is the user's), named after the data folder; on
// macOS, and wherever there is no runtime folder, in the data folder's
// run/ folder. The folder is 0700 and the user's, the socket 0600; the
// folder is opened without following a symbolic link and the socket is
// reached through that open folder (on Linux /proc/self/fd/N/NAME, which
// also keeps a long path under sun_path's 108 bytes), so a link planted in
// its place is never followed: the agent removes whatever is at the
// socket's name and binds afresh, the client refuses anything there that
// is not a socket of its own user.
//
// # Who
//
// Every connection's peer is asked for its uid (SO_PEERCRED on Linux,
// LOCAL_PEERCRED on macOS), by both sides: the agent refuses a peer of
// another uid at once, with nothing done, and the client talks only to an
// agent of its own uid.
//
// # What
//
// Both sides write JSON frames, one a line. The agent opens with a hello
// (its pid, version and data folder). The client sends one Request: the
// command line, as the CLI was given it, at most MaxRequest bytes and
// within RequestWait, or it is refused and the connection closed. The
// agent then runs the command and streams what it writes: stdout frames
// (with --json, exactly the document `rambar VERB --json` prints,
// docs/json.md), stderr frames (progress lines, warnings, errors), an
// alive frame every Heartbeat while the command runs, and last an exit
// frame with the command's exit code. A client that half-closes its side
// (Ctrl-C) cancels the command, which stops the orderly way and still
// sends its exit frame.
package localapi
