package cocoa

import (
	"context"
	"sync"
	"time"

	"rambar/ramdisk"
)

// Fake is a native side that runs anywhere, for tests of what is built on
// this package: a notification center that records what it is asked, and
// an SMAppService whose status the test sets. FakeWindows (below) stands
// for the windows.
type Fake struct {
	mu sync.Mutex
	// Grant is the user's answer to the authorisation prompt.
	Grant bool
	// AuthErr, when set, is Authorize's error.
	AuthErr error
	// Settings is what Authorization reads (the user's choice in System Settings
	// since); Reads counts the reads.
	Settings AuthStatus
	Reads    int
	// Block, when set, holds Authorize until it is closed.
	Block chan struct{}
	// Asked counts authorisation prompts; Posted the notifications shown.
	Asked  int
	Posted []string

	// Service is the login item's status; ServiceErr, when set, every
	// LoginService call's error; RegisterErr Register's alone.
	// NeedsApproval makes Register wait for the user. Registers and
	// SettingsOpened count calls.
	Service        ServiceStatus
	ServiceErr     error
	RegisterErr    error
	NeedsApproval  bool
	Registers      int
	SettingsOpened int
}

var (
	_ Center       = (*Fake)(nil)
	_ LoginService = (*Fake)(nil)
)

// Authorize implements Center.
func (f *Fake) Authorize(ctx context.Context) (bool, error) {
	f.mu.Lock()
	f.Asked++
	block := f.Block
	f.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Grant, f.AuthErr
}

// Authorization implements Center.
func (f *Fake) Authorization(ctx context.Context) (AuthStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Reads++
	return f.Settings, nil
}

// Post implements Center.
func (f *Fake) Post(ctx context.Context, title, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Posted = append(f.Posted, title+": "+text)
	return nil
}

// Counts returns Asked and a copy of Posted.
func (f *Fake) Counts() (asked int, posted []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Asked, append([]string(nil), f.Posted...)
}

// Status implements LoginService.
func (f *Fake) Status() (ServiceStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Service, f.ServiceErr
}

// Register implements LoginService: enabled, or waiting for approval when
// NeedsApproval is set.
func (f *Fake) Register() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Registers++
	if f.ServiceErr != nil {
		return f.ServiceErr
	}
	if f.RegisterErr != nil {
		return f.RegisterErr
	}
	f.Service = ServiceEnabled
	if f.NeedsApproval {
		f.Service = ServiceRequiresApproval
	}
	return nil
}

// Unregister implements LoginService.
func (f *Fake) Unregister() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ServiceErr != nil {
		return f.ServiceErr
	}
	f.Service = ServiceNotRegistered
	return nil
}

// OpenSettings implements LoginService.
func (f *Fake) OpenSettings() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.SettingsOpened++
}

// FakeWindows are Windows that answer from a script and record what they
// showed.
type FakeWindows struct {
	mu sync.Mutex
	// Answers are the next Alert answers, in order; when they run out an
	// Alert is cancelled (Esc).
	Answers []Answer
	// Fill is what the user makes of each Form shown (nil: Cancel). The
	// fake presses Create even when the words refuse, as a check that
	// changed its mind between typing and pressing would.
	Fill func(shown Form) Form
	// Folder is ChooseFolder's answer ("" cancels).
	Folder string

	// Alerts, Forms and Words record what was shown: each Alert, each Form
	// as opened, and the words the window showed at opening and at Create.
	Alerts []Alert
	Forms  []Form
	Words  []string
	// Options are each Form's options, as opened.
	Options []FormOptions
}

var _ Windows = (*FakeWindows)(nil)

// Alert implements Windows.
func (w *FakeWindows) Alert(ctx context.Context, a Alert) (Answer, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Alerts = append(w.Alerts, a)
	if len(w.Answers) == 0 {
		return Answer{}, ramdisk.ErrCancelled
	}
	ans := w.Answers[0]
	w.Answers = w.Answers[1:]
	var err error
	ans.Button, err = pressed(ans.Button, a.Buttons, a.cancelTitle())
	return ans, err
}

// ChooseFolder implements Windows.
func (w *FakeWindows) ChooseFolder(ctx context.Context, title, start string) (string, error) {
	if w.Folder == "" {
		return "", ramdisk.ErrCancelled
	}
	return w.Folder, nil
}

// Form implements Windows.
func (w *FakeWindows) Form(ctx context.Context, title string, f Form, opt FormOptions, words func(Form) (string, bool)) (Form, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Forms = append(w.Forms, f)
	w.Options = append(w.Options, opt)
	text, _ := words(f)
	w.Words = append(w.Words, text)
	if w.Fill == nil {
		return Form{}, ramdisk.ErrCancelled
	}
	got := w.Fill(f)
	text, _ = words(got)
	w.Words = append(w.Words, text)
	return got, nil
}

// FakePower stands for I/O Kit's root power domain: it delivers power
// messages to a Power as IORegisterForSystemPower's callback would (from
// a thread of its own) and records the IOAllowPowerChange calls.
type FakePower struct {
	mu sync.Mutex
	// AllowErr, when set, is every Allow's error.
	AllowErr error
	// Allowed are the notification IDs allowed, in order; Held how long
	// each Message call took (the callback's queue is held that long).
	Allowed []uintptr
	Held    []time.Duration
	// OnAllow, when set, is called at each Allow (tests note the order).
	OnAllow func(id uintptr)
}

// Allow is IOAllowPowerChange.
func (f *FakePower) Allow(id uintptr) error {
	f.mu.Lock()
	f.Allowed = append(f.Allowed, id)
	on := f.OnAllow
	f.mu.Unlock()
	if on != nil {
		on(id)
	}
	return f.AllowErr
}

// CanSleep delivers kIOMessageCanSystemSleep (idle sleep asked about).
func (f *FakePower) CanSleep(p *Power, id uintptr) { f.deliver(p, msgCanSystemSleep, id) }

// WillSleep delivers kIOMessageSystemWillSleep.
func (f *FakePower) WillSleep(p *Power, id uintptr) { f.deliver(p, msgSystemWillSleep, id) }

// Woke delivers the wake messages, none of which is acknowledged.
func (f *FakePower) Woke(p *Power) {
	for _, m := range []uint32{msgSystemWillNotSleep, msgSystemWillPowerOn, msgSystemHasPoweredOn} {
		f.deliver(p, m, 0)
	}
}

func (f *FakePower) deliver(p *Power, msg uint32, id uintptr) {
	start := time.Now()
	p.Message(msg, id)
	held := time.Since(start)
	f.mu.Lock()
	f.Held = append(f.Held, held)
	f.mu.Unlock()
}

// Answers returns copies of Allowed and Held.
func (f *FakePower) Answers() (allowed []uintptr, held []time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]uintptr(nil), f.Allowed...), append([]time.Duration(nil), f.Held...)
}
