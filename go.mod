module rambar

go 1.26.0

require (
	fyne.io/systray v1.12.2
	github.com/ebitengine/purego v0.11.3
	github.com/godbus/dbus/v5 v5.2.4
	github.com/jackmordaunt/icns/v3 v3.0.1
	github.com/ncruces/zenity v0.10.14
	golang.org/x/sys v0.42.0
	golang.org/x/text v0.44.0
	howett.net/plist v1.0.1
)

require (
	github.com/akavel/rsrc v0.10.2 // indirect
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/dchest/jsmin v0.0.0-20220218165748-59f39799265f // indirect
	github.com/josephspurrier/goversioninfo v1.4.1 // indirect
	github.com/nfnt/resize v0.0.0-20180221191011-83c6a9932646 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	github.com/randall77/makefat v0.0.0-20210315173500-7ddd0e42c844 // indirect
	github.com/stretchr/testify v1.10.0 // indirect
	golang.org/x/image v0.20.0 // indirect
)
