package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"rambar/darwin/cocoa"
)

// `rambar login` where SMAppService decides, over the fake service.
func TestRunLoginService(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		svc      *cocoa.Fake
		verbs    []string
		json     bool
		want     string
		wantSvc  cocoa.ServiceStatus
		settings int
	}{
		{"on", &cocoa.Fake{}, []string{"on"}, false, "RAMBar starts at login (System Settings › General › Login Items)", cocoa.ServiceEnabled, 0},
		{"needs approval", &cocoa.Fake{NeedsApproval: true}, []string{"on"}, false,
			"RAMBar is a login item now, waiting for you: allow RAMBar in System Settings › General › Login Items", cocoa.ServiceRequiresApproval, 1},
		{"off", &cocoa.Fake{Service: cocoa.ServiceEnabled}, []string{"off"}, false, "RAMBar no longer starts at login.", cocoa.ServiceNotRegistered, 0},
		{"status on", &cocoa.Fake{Service: cocoa.ServiceEnabled}, []string{"status"}, false, "on: RAMBar starts at login (SMAppService: enabled)", cocoa.ServiceEnabled, 0},
		{"status waiting", &cocoa.Fake{Service: cocoa.ServiceRequiresApproval}, []string{"status"}, false,
			"off: RAMBar does not start at login (SMAppService: waiting for approval", cocoa.ServiceRequiresApproval, 0},
		{"status json", &cocoa.Fake{Service: cocoa.ServiceEnabled}, []string{"status"}, true, `"enabled": true,`, cocoa.ServiceEnabled, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			a := &App{Stdout: &out, Stderr: &out}
			for _, v := range c.verbs {
				if err := runLoginService(ctx, a, &cocoa.Login{Service: c.svc}, v, c.json); err != nil {
					t.Fatalf("login %s: %v", v, err)
				}
			}
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("output %q lacks %q", out.String(), c.want)
			}
			if c.svc.Service != c.wantSvc || c.svc.SettingsOpened != c.settings {
				t.Errorf("service %v, settings opened %d; want %v, %d", c.svc.Service, c.svc.SettingsOpened, c.wantSvc, c.settings)
			}
		})
	}
}
