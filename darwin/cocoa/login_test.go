package cocoa

import (
	"context"
	"errors"
	"strings"
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

// memNote is a FallbackNote in memory.
type memNote struct{ reason string }

func (n *memNote) Read() string              { return n.reason }
func (n *memNote) Write(reason string) error { n.reason = reason; return nil }

// Without SMAppService (macOS 12, not in a bundle) the LaunchAgent does the
// work, and the state says why.
func TestLoginWithoutService(t *testing.T) {
	ctx := context.Background()
	a := &agent{}
	l := &Login{NoService: errors.New("not running from an app bundle"), Agent: a}
	if err := l.Set(ctx, true); err != nil || !a.on {
		t.Fatalf("Set(true) = %v, agent on %v", err, a.on)
	}
	st, err := l.State(ctx)
	if err != nil || !st.Enabled || st.Way != "LaunchAgent" || st.Service != "none" || !strings.Contains(st.Why, "not running from an app bundle") {
		t.Errorf("State = %+v, %v; want on through the LaunchAgent, saying why", st, err)
	}
	if err := l.Set(ctx, false); err != nil || a.on {
		t.Errorf("Set(false) = %v, agent on %v", err, a.on)
	}
}

// "Not found" is what SMAppService reports for an app outside the App Store
// that never registered: a fresh install. It is registered, not skipped.
func TestLoginRegistersWhenNotFound(t *testing.T) {
	ctx := context.Background()
	f := &Fake{Service: ServiceNotFound}
	a := &agent{}
	l := &Login{Service: f, Agent: a, Note: &memNote{}}
	if on, err := l.Enabled(ctx); err != nil || on {
		t.Fatalf("Enabled before = %v, %v", on, err)
	}
	if err := l.Set(ctx, true); err != nil {
		t.Fatalf("Set(true): %v", err)
	}
	if f.Registers != 1 || f.Service != ServiceEnabled || len(a.sets) != 0 {
		t.Errorf("registers %d, service %v, agent set %v; want one register and no agent", f.Registers, f.Service, a.sets)
	}
	if st, _ := l.State(ctx); st.Way != "SMAppService" || st.Why != "" {
		t.Errorf("State = %+v, want SMAppService with nothing to explain", st)
	}
}

// A register that fails falls back to the LaunchAgent, and `login status`
// says why until a later register works (which removes the agent).
func TestLoginFallsBackWhenRegisterFails(t *testing.T) {
	ctx := context.Background()
	f := &Fake{Service: ServiceNotFound, RegisterErr: errors.New("Operation not permitted (SMAppServiceErrorDomain 1)")}
	a := &agent{}
	note := &memNote{}
	l := &Login{Service: f, Agent: a, Note: note}
	if err := l.Set(ctx, true); err != nil || !a.on {
		t.Fatalf("Set(true) = %v, agent on %v; want the LaunchAgent written", err, a.on)
	}
	st, err := l.State(ctx)
	if err != nil || !st.Enabled || st.Way != "LaunchAgent" || !strings.Contains(st.Why, "Operation not permitted") || !strings.Contains(st.Why, "not found") {
		t.Errorf("State = %+v, %v; want on through the LaunchAgent, with the register's error", st, err)
	}
	// A new process reads the note again.
	l2 := &Login{Service: f, Agent: a, Note: note}
	if st, _ := l2.State(ctx); !strings.Contains(st.Why, "Operation not permitted") {
		t.Errorf("State in the next run = %+v, want the reason kept", st)
	}
	f.RegisterErr = nil
	if err := l.Set(ctx, true); err != nil {
		t.Fatalf("Set(true) once register works: %v", err)
	}
	if a.on || note.reason != "" || f.Service != ServiceEnabled {
		t.Errorf("agent on %v, note %q, service %v; want SMAppService alone", a.on, note.reason, f.Service)
	}
}

// A copy running translocated or from its disk image must not become the
// login item, whichever way would be used; turning it off still works.
func TestLoginRefusedCopy(t *testing.T) {
	ctx := context.Background()
	refused := errors.New("login item: RAMBar is running from /private/var/folders/x/AppTranslocation/y/d")
	for name, svc := range map[string]*Fake{"SMAppService": {Service: ServiceNotFound}, "no service": nil} {
		t.Run(name, func(t *testing.T) {
			a := &agent{}
			l := &Login{Agent: a, Refused: refused}
			if svc != nil {
				l.Service = svc
			}
			if err := l.Set(ctx, true); !errors.Is(err, refused) {
				t.Errorf("Set(true) = %v, want the refusal", err)
			}
			if len(a.sets) != 0 || (svc != nil && svc.Registers != 0) {
				t.Errorf("agent set %v, service registered: nothing may change", a.sets)
			}
			if err := l.Set(ctx, false); err != nil {
				t.Errorf("Set(false) = %v", err)
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
