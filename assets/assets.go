// Package assets holds RAMBar's menu-bar icons, drawn by gen.go (`go
// generate ./assets`) and embedded in the binary.
package assets

import _ "embed" // for the icons below

//go:generate go run gen.go

// Tray is the menu-bar icon for panels of unknown colour (Linux): a light
// memory module with a dark outline, 32×32.
//
//go:embed tray.png
var Tray []byte

// TrayTemplate is the macOS template image (black on transparent, 32×32
// for 16 pt at 2x): the system tints it for light and dark menu bars.
//
//go:embed tray-template.png
var TrayTemplate []byte

// TrayWarning is Tray with an amber dot: the machine swaps or a disk is nearly full.
//
//go:embed tray-warning.png
var TrayWarning []byte

// TrayWarningTemplate is TrayTemplate with the warning dot.
//
//go:embed tray-warning-template.png
var TrayWarningTemplate []byte
