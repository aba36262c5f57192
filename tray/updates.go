package tray

import (
	"context"
	"strings"

	"rambar/ramdisk"
)

// Updates is Check for Updates… (Deps.Updates; nil hides it). The app
// plugs in the update package's use case, the same one `rambar update` runs.
type Updates struct {
	// Check looks whether a newer release is out.
	Check func(ctx context.Context) (UpdateOffer, error)
	// Download saves the offered release's disk image in Downloads once
	// every check of it passed, opens it, and returns its path.
	Download func(ctx context.Context, o UpdateOffer, progress ProgressFunc) (string, error)
	// Daily: Settings offers Check for Updates Daily (a copy that updates
	// itself; not one Homebrew updates, not Linux).
	Daily bool
}

// UpdateOffer is what a check found.
type UpdateOffer struct {
	// Available is true when a newer release can be downloaded.
	Available bool
	// Version is the newest release's; Notes its release notes.
	Version, Notes string
	// Line says what the check found in one sentence (also how a copy that
	// does not update itself is updated).
	Line string
	// Release is the update package's release, handed back to Download.
	Release any
}

// checkUpdates is Check for Updates…: the check, then the release notes with
// a Download button, then the download and its checks, with its progress in
// the menu; the disk image is opened, never run, and the running app is
// left as it is.
func (c *Controller) checkUpdates() {
	if c.state.Updating != "" {
		return
	}
	u := c.d.Updates
	c.state.Updating = c.p.T("Checking for Updates…")
	c.render()
	c.goJob(func(ctx context.Context) {
		o, err := u.Check(ctx)
		if err != nil {
			// The update package's errors are one sentence each: said whole.
			c.post(func() { c.updateDone(); c.notify(c.p.T("Can't check for updates"), err.Error()) })
			return
		}
		if !o.Available {
			c.post(c.updateDone)
			c.show(ctx, c.p.T("Check for Updates"), o.Line)
			return
		}
		c.post(c.updateDone)
		text := o.Line + "\n\n"
		if strings.TrimSpace(o.Notes) != "" {
			text += c.p.T("What's new:") + "\n" + strings.TrimSpace(o.Notes) + "\n\n"
		}
		text += c.p.T("Download saves the disk image in Downloads, checks its signature, and opens it. " +
			"To install it, quit RAMBar and drag the new RAMBar onto Applications.")
		title := c.p.T("RAMBar %s is available", o.Version)
		if c.d.Dialogs == nil {
			c.post(func() { c.notify(title, o.Line) })
			return
		}
		acted, err := c.d.Dialogs.Result(ctx, title, text, c.p.T("Download"))
		if err != nil || !acted {
			return
		}
		c.download(ctx, u, o)
	})
}

// download runs Download off the event loop with its progress in the menu.
func (c *Controller) download(ctx context.Context, u *Updates, o UpdateOffer) {
	what := c.p.T("Downloading RAMBar %s…", o.Version)
	c.post(func() { c.state.Updating, c.state.UpdateProgress = what, ramdisk.Progress{}; c.render() })
	last := -1
	path, err := u.Download(ctx, o, func(done, total int64) {
		p := ramdisk.Progress{BytesDone: done, BytesTotal: total}
		if pc := p.Percent(); pc != last {
			last = pc
			c.post(func() { c.state.UpdateProgress = p; c.render() })
		}
	})
	c.post(func() {
		c.updateDone()
		if err != nil {
			c.notify(c.p.T("RAMBar %s not downloaded", o.Version), err.Error())
			return
		}
		c.notify(c.p.T("RAMBar %s is in Downloads", o.Version),
			c.p.T("Its disk image is open: quit RAMBar, then drag RAMBar onto Applications. (%s)", path))
	})
}

func (c *Controller) updateDone() {
	c.state.Updating, c.state.UpdateProgress = "", ramdisk.Progress{}
	c.render()
}

// show puts text in a window (a notification without dialogs).
func (c *Controller) show(ctx context.Context, title, text string) {
	if c.d.Dialogs == nil {
		c.post(func() { c.notify(title, text) })
		return
	}
	if err := c.d.Dialogs.Message(ctx, title, text); err != nil {
		c.d.Logf("message: %v", err)
	}
}

// toggleDailyUpdates turns the daily check on or off.
func (c *Controller) toggleDailyUpdates() {
	want := !c.state.Settings.CheckForUpdatesDaily
	c.changeSetting(func(s *ramdisk.Settings) { s.CheckForUpdatesDaily = want },
		func(s *ramdisk.Settings) { s.CheckForUpdatesDaily = !want })
}

// updatesItems are Check for Updates… and, while it works, its progress.
func updatesItems(s menuState) []Item {
	if !s.Features.Updates {
		return nil
	}
	if s.Updating != "" {
		t := s.Updating
		if s.UpdateProgress.BytesTotal > 0 {
			t = s.P.T("%s %d%%", t, s.UpdateProgress.Percent())
		}
		return []Item{{Key: "updates", Title: t, Disabled: true}}
	}
	return []Item{{Key: "updates", Title: s.P.T("Check for Updates…"), action: action{Kind: actCheckUpdates}}}
}
