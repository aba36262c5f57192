package localapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Version is the protocol's version: a Request of another is refused.
const Version = 1

// Bounds on what a client may send and how long the agent waits for it.
const (
	// MaxRequest bounds a request line, in bytes.
	MaxRequest = 64 << 10
	// RequestWait bounds how long the agent waits for the whole request
	// once connected.
	RequestWait = 5 * time.Second
	// Heartbeat is how often a running command says it is alive.
	Heartbeat = time.Second
	// MaxFrame bounds a frame the client reads (output comes in chunks of
	// at most chunk bytes, escaped).
	MaxFrame = 1 << 20
	// chunk bounds the output one frame carries.
	chunk = 64 << 10
	// maxConns bounds the connections served at once; more are refused.
	maxConns = 32
)

// Request is what a client asks: run this command line.
type Request struct {
	Version int `json:"version"`
	// Args is the command line after "rambar" ("save", "Work", "--json").
	Args []string `json:"args"`
	// Interactive: the client's stderr is a terminal (progress redraws).
	Interactive bool `json:"interactive,omitempty"`
	// Lang is the client's language (a BCP 47 tag): the agent says the
	// command's messages and errors in it.
	Lang string `json:"lang,omitempty"`
}

// Hello is the agent's first frame.
type Hello struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
	Data    string `json:"data"`
}

// Frame is one line the agent writes.
type Frame struct {
	Hello  *Hello `json:"hello,omitempty"`
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// StdoutBytes and StderrBytes carry output that is not UTF-8 (base64
	// in JSON), so every byte arrives as written.
	StdoutBytes []byte `json:"stdout_bytes,omitempty"`
	StderrBytes []byte `json:"stderr_bytes,omitempty"`
	Alive       bool   `json:"alive,omitempty"`
	// Error is a refusal of the connection or the request (with Exit).
	Error string `json:"error,omitempty"`
	// Exit ends the answer: the command's exit code.
	Exit *int `json:"exit,omitempty"`
}

// ErrTooLarge: a line longer than its bound.
var ErrTooLarge = errors.New("too large")

// readLine reads one line of at most max bytes (without its newline).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		if len(line)+len(part) > max+1 {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
		}
		line = append(line, part...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// encode is f as one line.
func encode(v any) []byte {
	b, _ := json.Marshal(v)
	return append(b, '\n')
}
