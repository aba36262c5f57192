package cocoa

import (
	"context"
	"errors"
	"testing"
)

// agent is a LaunchAgent stand-in.
type agent struct {
	on   bool
	sets []bool
	err  error
}

func (a *agent) Enabled(context.Context) (bool, error) { return a.on, a.err }
func (a *agent) Set(_ context.Context, on bool) error {
	a.sets = append(a.sets, on)
	a.on = on
	return nil
}

func TestServiceStatusWords(t *testing.T) {
	for st, want := range map[ServiceStatus]string{
		ServiceNotRegistered:    "not registered",
		ServiceEnabled:          "enabled",
		ServiceRequiresApproval: "waiting for approval in System Settings › General › Login Items",
		ServiceNotFound:         "not found",
		ServiceStatus(9):        "status 9",
	} {
		if got := st.String(); got != want {
			t.Errorf("%d: %q, want %q", int(st), got, want)
		}
	}
}

func TestLoginWithService(t *testing.T) {
	ctx := context.Background()
	f := &Fake{}
	old := &agent{on: true} // left by an earlier version
	l := &Login{Service: f, Agent: old}
	if on, err := l.Enabled(ctx); err != nil || !on {
		t.Fatalf("Enabled with the old agent = %v, %v; want true (it starts RAMBar)", on, err)
	}
	if err := l.Set(ctx, true); err != nil {
		t.Fatalf("Set(true): %v", err)
	}
	if f.Service != ServiceEnabled || f.Registers != 1 {
		t.Errorf("service %v after %d registers", f.Service, f.Registers)
	}
	if old.on {
		t.Error("the old LaunchAgent is still in place: RAMBar would start twice")
	}
	if err := l.Set(ctx, true); err != nil || f.Registers != 1 {
		t.Errorf("Set(true) again = %v with %d registers; want no-op", err, f.Registers)
	}
	if on, err := l.Enabled(ctx); err != nil || !on {
		t.Errorf("Enabled = %v, %v", on, err)
	}
	if err := l.Set(ctx, false); err != nil {
		t.Fatalf("Set(false): %v", err)
	}
	if on, _ := l.Enabled(ctx); on || f.Service != ServiceNotRegistered {
		t.Errorf("after Set(false): enabled %v, service %v", on, f.Service)
	}
	if len(old.sets) != 1 {
		t.Errorf("agent set %v, want only the one removal", old.sets)
	}
}

func TestLoginRequiresApproval(t *testing.T) {
	ctx := context.Background()
	f := &Fake{NeedsApproval: true}
	l := &Login{Service: f, Agent: &agent{}}
	if err := l.Set(ctx, true); !errors.Is(err, ErrNeedsApproval) {
		t.Fatalf("Set(true) = %v, want ErrNeedsApproval", err)
	}
	if f.SettingsOpened != 1 {
		t.Errorf("System Settings opened %d times, want once", f.SettingsOpened)
	}
	on, err := l.Enabled(ctx)
	if on || !errors.Is(err, ErrNeedsApproval) {
		t.Errorf("Enabled = %v, %v; want false with ErrNeedsApproval (it will not start yet)", on, err)
	}
	// Clicking again does not register twice; it shows the settings again.
	if err := l.Set(ctx, true); !errors.Is(err, ErrNeedsApproval) || f.Registers != 1 || f.SettingsOpened != 2 {
		t.Errorf("second Set(true) = %v, %d registers, settings opened %d", err, f.Registers, f.SettingsOpened)
	}
	if err := l.Set(ctx, false); err != nil || f.Service != ServiceNotRegistered {
		t.Errorf("Set(false) = %v, service %v", err, f.Service)
	}
}

// Without SMAppService (macOS 12, not in a bundle) or when it does not know
// the app, the LaunchAgent does the work.
func TestLoginFallsBackToTheAgent(t *testing.T) {
	ctx := context.Background()
	for name, svc := range map[string]LoginService{
		"no service": nil,
		"not found":  &Fake{Service: ServiceNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			a := &agent{}
			l := &Login{Service: svc, Agent: a}
			if err := l.Set(ctx, true); err != nil || !a.on {
				t.Fatalf("Set(true) = %v, agent on %v", err, a.on)
			}
			if on, err := l.Enabled(ctx); err != nil || !on {
				t.Errorf("Enabled = %v, %v", on, err)
			}
			if err := l.Set(ctx, false); err != nil || a.on {
				t.Errorf("Set(false) = %v, agent on %v", err, a.on)
			}
			if f, ok := svc.(*Fake); ok && f.Registers != 0 {
				t.Errorf("a service that does not know the app was registered %d times", f.Registers)
			}
		})
	}
}

func TestLoginServiceErrors(t *testing.T) {
	boom := errors.New("Operation not permitted")
	l := &Login{Service: &Fake{ServiceErr: boom}, Agent: &agent{}}
	if err := l.Set(context.Background(), true); !errors.Is(err, boom) {
		t.Errorf("Set = %v, want it to wrap %v", err, boom)
	}
	if _, err := l.Enabled(context.Background()); !errors.Is(err, boom) {
		t.Errorf("Enabled = %v, want it to wrap %v", err, boom)
	}
	if err := (&Login{}).Set(context.Background(), true); err == nil {
		t.Error("Set with neither service nor agent succeeded")
	}
}
