package cocoa

import "testing"

func TestReportText(t *testing.T) {
	for _, c := range []struct {
		r    Report
		want string
	}{
		{Report{InBundle: true, BundleID: "app.rambar.RAMBar", Login: ServiceRequiresApproval, Notify: AuthAuthorized},
			"in app bundle: true\nbundle identifier: app.rambar.RAMBar\n" +
				"login item (SMAppService): waiting for approval in System Settings › General › Login Items (2)\n" +
				"notifications (UNUserNotificationCenter): allowed (2)\n"},
		{Report{LoginErr: "not running from an app bundle", NotifyErr: "not running from an app bundle"},
			"in app bundle: false\nlogin item (SMAppService): none: not running from an app bundle\n" +
				"notifications (UNUserNotificationCenter): none: not running from an app bundle\n"},
	} {
		if got := c.r.Text(); got != c.want {
			t.Errorf("Text() =\n%s\nwant\n%s", got, c.want)
		}
	}
	for s, want := range map[AuthStatus]string{AuthNotDetermined: "not asked yet", AuthDenied: "denied", AuthProvisional: "provisional", AuthEphemeral: "ephemeral", 7: "status 7"} {
		if got := s.String(); got != want {
			t.Errorf("%d: %q, want %q", int(s), got, want)
		}
	}
}
