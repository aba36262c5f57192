package main

import (
	"encoding/xml"
	"os"
	"strings"
	"testing"
)

// TestPolkitPolicy: the polkit actions make install puts in place name
// RAMBar, never keep the answer (auth_admin: a kept answer for mount would
// be root for any program of the session, with arguments of its own), and
// cover the mount and umount RAMBar runs through pkexec (merged /usr or
// not); packaging/linux/app.rambar.policy is well-formed XML.
func TestPolkitPolicy(t *testing.T) {
	b, err := os.ReadFile("../packaging/linux/app.rambar.policy")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Actions []struct {
			ID       string `xml:"id,attr"`
			Message  string `xml:"message"`
			Active   string `xml:"defaults>allow_active"`
			Annotate []struct {
				Key   string `xml:"key,attr"`
				Value string `xml:",chardata"`
			} `xml:"annotate"`
		} `xml:"action"`
	}
	if err := xml.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, a := range p.Actions {
		if a.Active != "auth_admin" {
			t.Errorf("%s: allow_active %q, want auth_admin", a.ID, a.Active)
		}
		if len(a.Message) < 10 || !strings.Contains(a.Message, "RAMBar") {
			t.Errorf("%s: the prompt %q does not name RAMBar", a.ID, a.Message)
		}
		for _, an := range a.Annotate {
			if an.Key == "org.freedesktop.policykit.exec.path" {
				paths[an.Value] = true
			}
		}
	}
	for _, want := range []string{"/usr/bin/mount", "/usr/bin/umount", "/bin/mount", "/bin/umount"} {
		if !paths[want] {
			t.Errorf("no action for pkexec %s", want)
		}
	}
}
