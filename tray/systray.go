//go:build cgo || !darwin

package tray

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/systray"

	"rambar/assets"
	"rambar/internal/signals"
)

// Run shows the menu-bar app and blocks until the user quits (or SIGINT or
// SIGTERM arrives: then it leaves disks mounted and quits without asking).
// On Linux it first checks that the icon can be seen: a session bus already
// running (none is ever autolaunched) and a tray host on it, waited for up
// to Deps.HostWait; it returns an error naming what is missing instead of
// running with an icon nobody sees. It must be called from the main
// goroutine (macOS runs Cocoa there).
func Run(d Deps) error {
	wait := d.HostWait
	if wait <= 0 {
		wait = defaultHostWait
	}
	logf := d.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	sig, stop := signal.NotifyContext(context.Background(), signals.Stop()...)
	err := checkHost(sig, wait, logf)
	stop()
	if err != nil {
		return err
	}
	ui := &sysUI{items: map[string]*systray.MenuItem{}, prev: map[string]Item{}, icon: -1}
	d.Quit = systray.Quit
	c := New(d, ui)
	ui.click = c.Click
	stopped := make(chan struct{})
	onReady := func() {
		if d.Started != nil {
			go func() {
				d.Started()
				c.RefreshNow()
			}()
		}
		go func() {
			c.Run(context.Background())
			close(stopped)
			systray.Quit()
		}()
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, signals.Stop()...)
		go func() {
			select {
			case <-sigs:
			case <-d.Stop: // nil: never
			}
			c.Quit()
		}()
		go func() {
			for {
				select {
				case <-systray.TrayOpenedCh:
					c.RefreshNow()
				case <-stopped:
					return
				}
			}
		}()
	}
	systray.Run(onReady, nil)
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
	}
	return nil
}

// sysUI puts Menus into systray. It updates items in place while the menu's
// shape (keys, nesting, separators, checkboxes) stays the same, and rebuilds
// the menu only when the shape changes, so an open menu does not flicker on
// every refresh.
type sysUI struct {
	mu    sync.Mutex
	gen   atomic.Int64 // bumped at each rebuild; clicks from older items are dropped
	shape string
	items map[string]*systray.MenuItem
	prev  map[string]Item
	title string
	tip   string
	icon  Icon
	click func(key string)
}

func (u *sysUI) SetMenu(m Menu) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if m.Icon != u.icon {
		u.icon = m.Icon
		if m.Icon == IconWarning {
			systray.SetTemplateIcon(assets.TrayWarningTemplate, assets.TrayWarning)
		} else {
			systray.SetTemplateIcon(assets.TrayTemplate, assets.Tray)
		}
	}
	if m.Title != u.title {
		u.title = m.Title
		systray.SetTitle(m.Title)
	}
	if m.Tooltip != u.tip {
		u.tip = m.Tooltip
		systray.SetTooltip(m.Tooltip)
	}
	if s := shapeOf(m.Items); s != u.shape {
		u.shape = s
		u.rebuild(m.Items)
		return
	}
	m.Walk(func(it Item) { u.update(it) })
}

// shapeOf is what must match for items to be updated in place.
func shapeOf(items []Item) string {
	var b strings.Builder
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			b.WriteString(it.Key)
			if it.Checkbox {
				b.WriteString("☑")
			}
			if len(it.Children) > 0 {
				b.WriteString("[")
				walk(it.Children)
				b.WriteString("]")
			}
			b.WriteString("\x00")
		}
	}
	walk(items)
	return b.String()
}

func (u *sysUI) rebuild(items []Item) {
	gen := u.gen.Add(1)
	// ResetMenu closes every old item's ClickedCh; their forwarders see !ok
	// and stop, so no click is invented.
	systray.ResetMenu()
	u.items = map[string]*systray.MenuItem{}
	u.prev = map[string]Item{}
	var add func(parent *systray.MenuItem, it Item)
	add = func(parent *systray.MenuItem, it Item) {
		if it.Separator {
			if parent == nil {
				systray.AddSeparator()
			} else {
				parent.AddSeparator()
			}
			return
		}
		var mi *systray.MenuItem
		title := label(it.Title)
		switch {
		case parent == nil && it.Checkbox:
			mi = systray.AddMenuItemCheckbox(title, it.Tooltip, it.Checked)
		case parent == nil:
			mi = systray.AddMenuItem(title, it.Tooltip)
		case it.Checkbox:
			mi = parent.AddSubMenuItemCheckbox(title, it.Tooltip, it.Checked)
		default:
			mi = parent.AddSubMenuItem(title, it.Tooltip)
		}
		if it.Disabled {
			mi.Disable()
		}
		u.items[it.Key] = mi
		u.prev[it.Key] = flat(it)
		if len(it.Children) == 0 {
			go u.forward(mi.ClickedCh, it.Key, gen)
		}
		for _, ch := range it.Children {
			add(mi, ch)
		}
	}
	for _, it := range items {
		add(nil, it)
	}
}

// forward waits on one item's clicks for as long as the item lives, so no
// click is dropped for want of a receiver.
func (u *sysUI) forward(ch chan struct{}, key string, gen int64) {
	for {
		if _, ok := <-ch; !ok {
			return // the item was removed by a rebuild
		}
		if u.gen.Load() == gen {
			u.click(key)
		}
	}
}

// label escapes a title for the platform: dbusmenu hosts (GTK, Qt) read "_"
// as a mnemonic marker, so a disk named my_disk would show as "mydisk".
func label(title string) string {
	if runtime.GOOS == "darwin" {
		return title
	}
	return strings.ReplaceAll(title, "_", "__")
}

func flat(it Item) Item { it.Children = nil; return it }

func (u *sysUI) update(it Item) {
	mi, ok := u.items[it.Key]
	if !ok {
		return
	}
	old := u.prev[it.Key]
	if it.Title != old.Title {
		mi.SetTitle(label(it.Title))
	}
	if it.Tooltip != old.Tooltip {
		mi.SetTooltip(it.Tooltip)
	}
	if it.Checked != old.Checked {
		if it.Checked {
			mi.Check()
		} else {
			mi.Uncheck()
		}
	}
	if it.Disabled != old.Disabled {
		if it.Disabled {
			mi.Disable()
		} else {
			mi.Enable()
		}
	}
	u.prev[it.Key] = flat(it)
}
