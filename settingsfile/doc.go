// Package settingsfile keeps the user's settings file: it reads it (every
// older version migrated, a corrupt or newer one refused and left as it
// is), and changes it under a lock shared by the CLI and the menu,
// replacing it atomically and durably (internal/atomicfile), the keys this
// RAMBar does not know kept. What the settings mean (presets, their
// checks, the codec) is the portable core's, package ramdisk; this package
// is only where they are stored, so that ramdisk imports nothing of the
// project.
package settingsfile
