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

// Login is the login item macOS 13+ offers (Service), with the LaunchAgent
// (Agent) as the fallback where Service is nil or does not know the app.
// With Service in use, a LaunchAgent left from an earlier version is
// removed, so RAMBar is not started twice.
type Login struct {
	Service LoginService
	Agent   Toggle
}

var _ Toggle = (*Login)(nil)

// usable reports whether Service decides, with its status.
func (l *Login) usable() (ServiceStatus, bool, error) {
	if l.Service == nil {
		return 0, false, nil
	}
	st, err := l.Service.Status()
	if err != nil {
		return 0, false, err
	}
	return st, st != ServiceNotFound, nil
}

// Enabled reports whether RAMBar starts at the next login: Service enabled
// (a registration still waiting for approval does not start it), or the
// LaunchAgent in place.
func (l *Login) Enabled(ctx context.Context) (bool, error) {
	st, ok, err := l.usable()
	if err != nil {
		return false, fmt.Errorf("login item: SMAppService status: %w", err)
	}
	if ok && st == ServiceEnabled {
		return true, nil
	}
	if l.Agent == nil {
		return false, nil
	}
	on, err := l.Agent.Enabled(ctx)
	if ok && st == ServiceRequiresApproval && err == nil && !on {
		return false, ErrNeedsApproval
	}
	return on, err
}

// Set turns the login item on or off. On: Service registers (a
// registration waiting for approval opens System Settings and returns
// ErrNeedsApproval) and any old LaunchAgent is removed; without Service, the
// LaunchAgent is written. Off: both are removed.
func (l *Login) Set(ctx context.Context, on bool) error {
	st, ok, err := l.usable()
	if err != nil {
		return fmt.Errorf("login item: SMAppService status: %w", err)
	}
	if !ok {
		if l.Agent == nil {
			return errors.New("login item: neither SMAppService nor a LaunchAgent is available")
		}
		return l.Agent.Set(ctx, on)
	}
	if on {
		if st != ServiceEnabled && st != ServiceRequiresApproval {
			if err := l.Service.Register(); err != nil {
				return fmt.Errorf("login item: SMAppService register: %w", err)
			}
		}
		if err := l.dropAgent(ctx); err != nil {
			return err
		}
		if st, err = l.Service.Status(); err == nil && st == ServiceRequiresApproval {
			l.Service.OpenSettings()
			return ErrNeedsApproval
		}
		return nil
	}
	if st != ServiceNotRegistered {
		if err := l.Service.Unregister(); err != nil {
			return fmt.Errorf("login item: SMAppService unregister: %w", err)
		}
	}
	return l.dropAgent(ctx)
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
