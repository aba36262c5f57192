package cocoa

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Center is a native notification center (UNUserNotificationCenter for the
// app bundle; Fake in tests).
type Center interface {
	// Authorize asks the user to allow notifications (macOS shows its prompt
	// the first time only, then answers from what the user chose); granted
	// is the answer.
	Authorize(ctx context.Context) (granted bool, err error)
	// Authorization reads the authorisation as it is now, without prompting (the
	// user may have turned notifications on in System Settings since).
	Authorization(ctx context.Context) (AuthStatus, error)
	// Post shows one notification now.
	Post(ctx context.Context, title, text string) error
}

// ErrNotAllowed is wrapped when notifications cannot be shown natively: the
// user turned them off for RAMBar, or RAMBar does not run from its bundle.
var ErrNotAllowed = errors.New("notifications are not allowed for RAMBar")

// Notifier shows notifications through Center, asking for authorisation
// once per process (at the first notification, so the prompt comes when
// there is something to show; a refusal is not kept: each later
// notification reads the settings again, without a prompt, so turning
// notifications on in System Settings works at once), and falls back when
// it can't: every
// notification is logged, and given to Fallback when that is set (the
// osascript route, which macOS attributes to Script Editor and may file
// invisibly: only when the user asked for it).
type Notifier struct {
	// Center is nil when there is none (not in an app bundle).
	Center Center
	// Fallback, when set, is tried when Center is nil or not allowed.
	Fallback func(ctx context.Context, title, text string) error
	// Log receives every notification, and once the reason native ones are
	// not shown. Required.
	Log func(line string)

	mu      sync.Mutex
	asked   chan struct{} // closed when the one authorisation has an answer
	granted bool
	askErr  error
	said    bool // the fallback reason was logged
}

// Notify shows title and text: natively when allowed, otherwise through the
// fallback. The error says why nothing reached the screen (the line is in
// the log either way).
func (n *Notifier) Notify(ctx context.Context, title, text string) error {
	n.Log(fmt.Sprintf("notify: %s: %s", title, text))
	err := n.native(ctx, title, text)
	if err == nil {
		return nil
	}
	n.mu.Lock()
	first := !n.said
	n.said = true
	n.mu.Unlock()
	if first {
		how := "they are shown in this log only"
		if n.Fallback != nil {
			how = "trying osascript instead"
		}
		n.Log(fmt.Sprintf("%v; %s", err, how))
	}
	if n.Fallback == nil {
		return err
	}
	if ferr := n.Fallback(ctx, title, text); ferr != nil {
		return errors.Join(err, ferr)
	}
	return nil
}

func (n *Notifier) native(ctx context.Context, title, text string) error {
	if n.Center == nil {
		return fmt.Errorf("%w: not running from RAMBar.app", ErrNotAllowed)
	}
	granted, err := n.authorize(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("%w: asking for permission: %w", ErrNotAllowed, err)
	case !granted:
		return fmt.Errorf("%w: turned off in System Settings › Notifications › RAMBar", ErrNotAllowed)
	}
	if err := n.Center.Post(ctx, title, text); err != nil {
		return fmt.Errorf("post notification: %w", err)
	}
	return nil
}

// authorize asks Center once; callers that come while it asks wait for the
// same answer. A caller whose ctx ends first gives up without an answer,
// and the question stays asked. After a refusal (or an error) the settings
// are read again, without a prompt, on every call.
func (n *Notifier) authorize(ctx context.Context) (bool, error) {
	n.mu.Lock()
	asked := n.asked
	if asked == nil {
		asked = make(chan struct{})
		n.asked = asked
		go func() {
			// Not ctx: the answer is kept for every later notification.
			g, err := n.Center.Authorize(context.Background())
			n.mu.Lock()
			n.granted, n.askErr = g, err
			n.mu.Unlock()
			close(asked)
		}()
	}
	n.mu.Unlock()
	select {
	case <-asked:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	n.mu.Lock()
	granted, askErr := n.granted, n.askErr
	n.mu.Unlock()
	if granted {
		return true, nil
	}
	st, err := n.Center.Authorization(ctx)
	if err != nil {
		if askErr != nil {
			return false, askErr
		}
		return false, err
	}
	if !st.Allows() {
		return false, askErr
	}
	n.mu.Lock()
	n.granted, n.askErr = true, nil
	n.mu.Unlock()
	return true, nil
}
