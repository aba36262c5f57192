//go:build linux

package changefeed

// defaultDropEvery is Options.DropEvery's default in ModeFSEvents.
const defaultDropEvery = 10

// drops is how many takes apart o's test mode drops one (0: none).
func (o Options) drops() int {
	switch {
	case o.Mode != ModeFSEvents || o.DropEvery < 0:
		return 0
	case o.DropEvery == 0:
		return defaultDropEvery
	}
	return o.DropEvery
}
