// Package tray is RAMBar's menu: a pure model (buildMenu turns the engine's state
// and the settings into a menu tree), a Controller that is the one event loop
// (clicks, refreshes and job progress in; engine work serialised on one
// worker goroutine), the zenity dialogs, and the fyne.io/systray glue (built
// with cgo on macOS, everywhere on Linux). It depends on ramdisk.Engine only;
// features of other packages plug in through the optional hooks of Deps.
package tray
