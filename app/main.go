// Command rambar makes, watches and removes RAM disks. Started with no
// arguments it is the menu-bar app; with a verb (`rambar create Scratch 4G`)
// it is the CLI.
package main

import (
	"os"
)

func main() {
	os.Exit(newApp().Main(os.Args[1:]))
}
