package update

import (
	"context"
	"fmt"
	"time"

	"rambar/internal/run"
)

// developerID is the code requirement of a Developer ID signature: Apple's
// anchor, the Developer ID intermediate (…6.2.6) and the Developer ID
// Application leaf (…6.1.13).
const developerID = "anchor apple generic and certificate 1[field.1.2.840.113635.100.6.2.6] exists and certificate leaf[field.1.2.840.113635.100.6.1.13] exists"

// MacVerify checks a downloaded dmg as Gatekeeper would: codesign --verify
// against the Developer ID requirement, and spctl --assess for a notarized
// disk image. Each tool is run with argv, never a shell.
func MacVerify(r run.Runner) func(ctx context.Context, path string) error {
	return func(ctx context.Context, path string) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		for _, argv := range MacChecks(path) {
			if _, err := r.Run(ctx, run.Cmd{Argv: argv}); err != nil {
				return fmt.Errorf("%s refused it: %v", argv[0], err)
			}
		}
		return nil
	}
}

// MacChecks are the commands MacVerify runs on path, in order.
func MacChecks(path string) [][]string {
	return [][]string{
		{"codesign", "--verify", "--strict", "--verbose=2", "-R=" + developerID, path},
		{"spctl", "--assess", "--type", "open", "--context", "context:primary-signature", "--verbose=2", path},
	}
}
