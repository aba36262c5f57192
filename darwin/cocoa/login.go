package cocoa

import (
	"context"
	"errors"
	"fmt"
)

// ServiceStatus is SMAppService's status of RAMBar's login item
// (SMAppServiceStatus, macOS 13+).
type ServiceStatus int

// SMAppServiceStatus values.
const (
	ServiceNotRegistered    ServiceStatus = 0
	ServiceEnabled          ServiceStatus = 1
	ServiceRequiresApproval ServiceStatus = 2
	ServiceNotFound         ServiceStatus = 3
)

// String is the status in words, as `rambar login status` prints it.
func (s ServiceStatus) String() string {
	switch s {
	case ServiceNotRegistered:
		return "not registered"
	case ServiceEnabled:
		return "enabled"
	case ServiceRequiresApproval:
		return "waiting for approval in System Settings › General › Login Items"
	case ServiceNotFound:
		return "not found"
	}
	return fmt.Sprintf("status %d", int(s))
}

// LoginService is SMAppService.mainAppService: RAMBar.app itself as a login
// item, listed by name in System Settings › General › Login Items.
type LoginService interface {
	Status() (ServiceStatus, error)
	Register() error
	Unregister() error
	// OpenSettings shows Login Items in System Settings, where the user
	// approves the item.
	OpenSettings()
}

// Toggle is a login item as the tray's "Launch at Login" checkbox and
// `rambar login` use it; login.Item (the LaunchAgent, XDG autostart) is one.
type Toggle interface {
	Enabled(ctx context.Context) (bool, error)
	Set(ctx context.Context, on bool) error
}

// ErrNeedsApproval is wrapped when the login item is registered but macOS
// waits for the user to allow it (System Settings has been opened there).
var ErrNeedsApproval = errors.New("allow RAMBar in System Settings › General › Login Items; it starts at login once allowed")

// FallbackNote keeps, across runs, why the LaunchAgent was used instead of
// SMAppService (its register failed), so `rambar login status` can say so.
type FallbackNote interface {
	// Read returns the reason noted ("" for none).
	Read() string
	// Write notes reason; "" clears it.
	Write(reason string) error
}

// Login is RAMBar's login item on macOS: SMAppService (macOS 13+, from the
// app bundle), which lists RAMBar by name in System Settings › General ›
// Login Items, with the LaunchAgent (Agent) only where Service is nil or
// its register fails. A status of "not found" is what an app outside the
// App Store reports before its first register: it is registered then, not
// taken as "this API does not know the app". With Service in use, a
// LaunchAgent left from an earlier version (or an earlier fallback) is
// removed, so RAMBar is not started twice.
type Login struct {
	Service LoginService
	// NoService is why Service is nil (not from the bundle, before macOS 13).
	NoService error
	Agent     Toggle
	// Refused, when set, is why this copy of RAMBar must not become the
	// login item (it runs translocated, or from its disk image): turning it
	// on returns it, whichever way would be used. Turning it off works.
	Refused error
	// Note keeps why the agent is used; nil keeps nothing.
	Note FallbackNote
}

var _ Toggle = (*Login)(nil)

// LoginState is the login item as `rambar login status` tells it.
type LoginState struct {
	// Enabled: RAMBar starts at the next login.
	Enabled bool `json:"enabled"`
	// Way is what starts it: "SMAppService", "LaunchAgent", or "" when off.
	Way string `json:"way,omitempty"`
	// Service is SMAppService's status in words ("none" without it).
	Service string `json:"service"`
	// Why says why the LaunchAgent is the way (or would be), when it is.
	Why string `json:"why,omitempty"`
	// NeedsApproval: registered, waiting for the user in System Settings.
	NeedsApproval bool `json:"needs_approval,omitempty"`
}

// State reads the login item: which way starts RAMBar, and why.
func (l *Login) State(ctx context.Context) (LoginState, error) {
	st := LoginState{Service: "none"}
	svc := ServiceStatus(-1)
	if l.Service != nil {
		s, err := l.Service.Status()
		if err != nil {
			return st, fmt.Errorf("login item: SMAppService status: %w", err)
		}
		svc, st.Service = s, s.String()
	}
	switch svc {
	case ServiceEnabled:
		st.Enabled, st.Way = true, "SMAppService"
		return st, nil
	case ServiceRequiresApproval:
		st.NeedsApproval = true
	}
	st.Why = l.why()
	if l.Agent != nil {
		on, err := l.Agent.Enabled(ctx)
		if err != nil {
			return st, err
		}
		if on {
			st.Enabled, st.Way = true, "LaunchAgent"
		}
	}
	return st, nil
}

// why is why the LaunchAgent is (or would be) used instead of SMAppService;
// "" when nothing keeps SMAppService from being used.
func (l *Login) why() string {
	switch {
	case l.Service == nil && l.NoService != nil:
		return "SMAppService is not available: " + l.NoService.Error()
	case l.Service == nil:
		return "SMAppService is not available"
	case l.Note != nil:
		return l.Note.Read()
	}
	return ""
}

// Enabled reports whether RAMBar starts at the next login: Service enabled
// (a registration still waiting for approval does not start it:
// ErrNeedsApproval), or the LaunchAgent in place.
func (l *Login) Enabled(ctx context.Context) (bool, error) {
	st, err := l.State(ctx)
	if err != nil {
		return false, err
	}
	if !st.Enabled && st.NeedsApproval {
		return false, ErrNeedsApproval
	}
	return st.Enabled, nil
}

// Set turns the login item on or off. On: refused with Refused; otherwise
// Service registers (unless enabled already; a registration waiting for
// approval opens System Settings and returns ErrNeedsApproval) and any
// LaunchAgent is removed; when there is no Service, or its register fails,
// the LaunchAgent is written and Note keeps why. Off: both are removed.
func (l *Login) Set(ctx context.Context, on bool) error {
	if on && l.Refused != nil {
		return l.Refused
	}
	if l.Service == nil {
		if l.Agent == nil {
			return fmt.Errorf("login item: neither SMAppService nor a LaunchAgent is available: %s", l.why())
		}
		return l.Agent.Set(ctx, on)
	}
	st, err := l.Service.Status()
	if err != nil {
		return fmt.Errorf("login item: SMAppService status: %w", err)
	}
	if !on {
		if st == ServiceEnabled || st == ServiceRequiresApproval {
			if err := l.Service.Unregister(); err != nil {
				return fmt.Errorf("login item: SMAppService unregister: %w", err)
			}
		}
		l.note("")
		return l.dropAgent(ctx)
	}
	if st != ServiceEnabled && st != ServiceRequiresApproval {
		if err := l.Service.Register(); err != nil {
			return l.fallBack(ctx, st, err)
		}
	}
	l.note("")
	if err := l.dropAgent(ctx); err != nil {
		return err
	}
	if st, err = l.Service.Status(); err == nil && st == ServiceRequiresApproval {
		l.Service.OpenSettings()
		return ErrNeedsApproval
	}
	return nil
}

// fallBack writes the LaunchAgent after SMAppService's register failed,
// noting why.
func (l *Login) fallBack(ctx context.Context, st ServiceStatus, regErr error) error {
	if l.Agent == nil {
		return fmt.Errorf("login item: SMAppService register: %w", regErr)
	}
	if err := l.Agent.Set(ctx, true); err != nil {
		return fmt.Errorf("login item: SMAppService register: %w; the LaunchAgent instead: %w", regErr, err)
	}
	l.note(fmt.Sprintf("SMAppService (status %s) refused to register RAMBar: %v", st, regErr))
	return nil
}

func (l *Login) note(reason string) {
	if l.Note != nil {
		l.Note.Write(reason)
	}
}

func (l *Login) dropAgent(ctx context.Context) error {
	if l.Agent == nil {
		return nil
	}
	if on, err := l.Agent.Enabled(ctx); err != nil || !on {
		return nil
	}
	return l.Agent.Set(ctx, false)
}
