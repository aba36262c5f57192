package tray

import (
	"rambar/ramdisk"
	"sync"
)

// StatusLine is a line the app asks the menu to show while it does
// something no click started: "Saving before logout… 45%". Safe from any
// goroutine and cheap (it never waits on the menu); the zero value is ready.
type StatusLine struct {
	mu     sync.Mutex
	text   string
	p      ramdisk.Progress
	listen func()
}

// Set shows text ("" hides the line) and forgets the progress.
func (s *StatusLine) Set(text string) {
	s.mu.Lock()
	s.text, s.p = text, ramdisk.Progress{}
	f := s.listen
	s.mu.Unlock()
	if f != nil {
		f()
	}
}

// Progress shows how far the job has come: done of total.
func (s *StatusLine) Progress(done, total int64) {
	s.mu.Lock()
	s.p = jobAt(done, total)
	f := s.listen
	s.mu.Unlock()
	if f != nil {
		f()
	}
}

func (s *StatusLine) get() (string, ramdisk.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text, s.p
}

// watch calls f after each change (the controller pulls the line then).
func (s *StatusLine) watch(f func()) {
	s.mu.Lock()
	s.listen = f
	s.mu.Unlock()
	f()
}
