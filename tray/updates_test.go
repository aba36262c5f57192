package tray

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheckForUpdatesOffersDownloadsAndOpens(t *testing.T) {
	dlg := &fakeDialogs{messages: make(chan string, 1), results: make(chan string, 1), act: true}
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	got := make(chan UpdateOffer, 1)
	h := start(t, func(d *Deps) {
		d.Dialogs = dlg
		d.Updates = &Updates{Daily: true,
			Check: func(context.Context) (UpdateOffer, error) {
				return UpdateOffer{Available: true, Version: "9.0.0", Notes: "Speaks your language.", Line: "RAMBar 9.0.0 is available (this copy is 1.0.0).", Release: 42}, nil
			},
			Download: func(ctx context.Context, o UpdateOffer, p ProgressFunc) (string, error) {
				p(50, 100)
				<-release
				got <- o
				return "/Users/ada/Downloads/RAMBar-9.0.0.dmg", nil
			}}
	})
	h.waitFor("  [x] Check for Updates Daily")
	h.c.Click("updates")
	select {
	case r := <-dlg.results:
		if !strings.HasPrefix(r, "RAMBar 9.0.0 is available: RAMBar 9.0.0 is available (this copy is 1.0.0).\n\nWhat's new:\nSpeaks your language.") || !strings.HasSuffix(r, "[Download]") {
			t.Errorf("the offer reads %q", r)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no offer shown")
	}
	h.waitFor("Downloading RAMBar 9.0.0… 50% (off)")
	once.Do(func() { close(release) })
	if o := <-got; o.Release != 42 {
		t.Errorf("Download got %+v", o)
	}
	h.note("RAMBar 9.0.0 is in Downloads: Its disk image is open: quit RAMBar")
	h.waitFor("Check for Updates…\n")
}

func TestCheckForUpdatesUpToDateAndFailing(t *testing.T) {
	dlg := &fakeDialogs{messages: make(chan string, 1), results: make(chan string, 1)}
	var fail atomic.Bool
	h := start(t, func(d *Deps) {
		d.Dialogs = dlg
		d.Updates = &Updates{Check: func(context.Context) (UpdateOffer, error) {
			if fail.Load() {
				return UpdateOffer{}, errors.New("update check: no answer from github.com within 30s")
			}
			return UpdateOffer{Line: "RAMBar 1.0.0 is up to date."}, nil
		}}
	})
	menu := h.waitFor("Check for Updates…")
	if strings.Contains(menu, "Check for Updates Daily") {
		t.Error("the daily setting is offered to a copy that does not update itself")
	}
	h.c.Click("updates")
	if m := <-dlg.messages; m != "Check for Updates: RAMBar 1.0.0 is up to date." {
		t.Errorf("%q", m)
	}
	h.waitFor("Check for Updates…\n")
	fail.Store(true)
	h.c.Click("updates")
	h.note("Can't check for updates: update check: no answer from github.com within 30s")
}

func TestDailyUpdatesSetting(t *testing.T) {
	h := start(t, func(d *Deps) {
		d.Updates = &Updates{Daily: true, Check: func(context.Context) (UpdateOffer, error) { return UpdateOffer{}, nil }}
	})
	h.waitFor("  [x] Check for Updates Daily")
	h.c.Click("updates/daily")
	h.waitFor("  [ ] Check for Updates Daily")
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := h.store.Load()
		if err == nil && !s.CheckForUpdatesDaily {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("settings hold %+v, %v", s, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
