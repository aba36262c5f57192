package assets

import _ "embed"

//go:generate go run ../packaging/appicon -o appicon.png

// AppIcon is RAMBar's 1024×1024 app icon (PNG), drawn by
// packaging/appicon: `go generate ./assets` redraws it, `make icons` turns it
// into the bundle's AppIcon.icns. Notifications and dialogs show it.
//
//go:embed appicon.png
var AppIcon []byte
