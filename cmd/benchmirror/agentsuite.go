//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The agent (issue 41): `rambar save` from a terminal with `rambar agent`
// running, which saves by the agent's change feed, against the same save
// walking the disk (no agent: the CLI does the work) and rsync -a
// --delete; then the first `rambar save` after a Mirror load, against
// rsync. Each figure is the real program's, from process start, on a disk
// the program made (RAMBAR_HOME and RAMBAR_MOUNT_ROOT of the bench's own).

const (
	// agentMaxSave is the most `rambar save` of one changed file may take
	// through the agent.
	agentMaxSave = 25 * time.Millisecond
	// agentRounds is how many rounds each figure is the median of.
	agentRounds = 7
	// firstSaveRounds is how many loads the first save after one is
	// measured on (each a Mirror load of the whole tree).
	firstSaveRounds = 3
)

// rambarRig runs the rambar binary with a data folder, mount root and
// runtime folder of its own.
type rambarRig struct {
	bin, work, root string
	env             []string
	agent           *exec.Cmd
	agentLog        bytes.Buffer
}

func newRambarRig(bin, dest string) (*rambarRig, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("the rambar binary (-rambar, make build): %w", err)
	}
	work, err := os.MkdirTemp(dest, "rambar-bench-agent-")
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "rambar-bench-mnt-")
	if err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	rt := filepath.Join(work, "run")
	os.Mkdir(rt, 0o700)
	g := &rambarRig{bin: bin, work: work, root: root}
	g.env = append(os.Environ(), "RAMBAR_HOME="+filepath.Join(work, "home"), "RAMBAR_MOUNT_ROOT="+root,
		"XDG_RUNTIME_DIR="+rt, "RAMBAR_NOTIFY=log")
	return g, nil
}

// run runs rambar and returns how long it took.
func (g *rambarRig) run(args ...string) (time.Duration, error) {
	cmd := exec.Command(g.bin, args...)
	cmd.Env = g.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return d, fmt.Errorf("rambar %s: %w\n%s", strings.Join(args, " "), err, out.String())
	}
	return d, nil
}

// startAgent runs `rambar agent` until stopAgent.
func (g *rambarRig) startAgent() error {
	g.agent = exec.Command(g.bin, "agent")
	g.agent.Env = g.env
	g.agentLog.Reset()
	g.agent.Stdout, g.agent.Stderr = &g.agentLog, &g.agentLog
	if err := g.agent.Start(); err != nil {
		return err
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if ents, _ := os.ReadDir(filepath.Join(g.work, "run", "rambar")); len(ents) > 0 {
			return nil
		}
	}
	return fmt.Errorf("the agent made no socket:\n%s", g.agentLog.String())
}

// stopAgent stops the agent (SIGTERM: it saves, then exits).
func (g *rambarRig) stopAgent() {
	if g.agent == nil {
		return
	}
	g.agent.Process.Signal(syscall.SIGTERM)
	g.agent.Wait()
	g.agent = nil
}

// done stops the agent, ejects what is left and removes the rig.
func (g *rambarRig) done() {
	g.stopAgent()
	g.run("eject", "--all", "--no-save", "--force")
	os.RemoveAll(g.work)
	os.Remove(g.root)
}

// agentSuite measures `rambar save` of one changed file in a disk of n
// files through the agent, walking, and by rsync; then the first save
// after a Mirror load of n files.
func agentSuite(r *report, n int, dest, bin string) error {
	g, err := newRambarRig(bin, dest)
	if err != nil {
		return err
	}
	defer g.done()
	name := fmt.Sprintf("agent, %d files", n)
	fmt.Printf("%s: generating...\n", name)
	if _, err := g.run("create", "Bench", "4G", "--keep"); err != nil {
		return err
	}
	vol := filepath.Join(g.root, "Bench")
	if _, err := generate(vol, n); err != nil {
		return err
	}
	if _, err := g.run("save", "Bench"); err != nil {
		return err
	}
	rs := filepath.Join(g.work, "rsync")
	if _, err := timed(g.work, "rsync", "-a", "--delete", vol+"/", rs+"/"); err != nil {
		return err
	}
	files := filesOf(vol)
	var byAgent, walking, byRsync []time.Duration
	rsync := func() error {
		d, err := timed(g.work, "rsync", "-a", "--delete", vol+"/", rs+"/")
		byRsync = append(byRsync, d)
		return err
	}
	if err := g.startAgent(); err != nil {
		return err
	}
	// The agent's first save of a disk walks it (it gives the feed every
	// folder to watch); from then on its saves read what changed.
	if err := changeFew(files, 1, 0); err != nil {
		return err
	}
	if _, err := g.run("save", "Bench"); err != nil {
		return err
	}
	for round := range agentRounds {
		if err := changeFew(files, 1, round+1); err != nil {
			return err
		}
		d, err := g.run("save", "Bench")
		if err != nil {
			return err
		}
		byAgent = append(byAgent, d)
		if err := rsync(); err != nil {
			return err
		}
		fmt.Printf("%s, round %d: through the agent %v, rsync %v\n", name, round+1, d.Round(time.Microsecond), byRsync[round].Round(time.Microsecond))
	}
	g.stopAgent()
	for round := range agentRounds {
		if err := changeFew(files, 1, round+100); err != nil {
			return err
		}
		d, err := g.run("save", "Bench")
		if err != nil {
			return err
		}
		walking = append(walking, d)
		fmt.Printf("%s, round %d: walking %v\n", name, round+1, d.Round(time.Microsecond))
	}
	med := median(byAgent)
	r.duration(name+": rambar save of 1 changed file through the agent", med, agentMaxSave)
	r.ratio(name+": rambar save of 1 changed file, through the agent vs walking the disk", med, median(walking), 0)
	r.ratio(name+": rambar save of 1 changed file, through the agent vs rsync -a --delete", med, median(byRsync), 50)
	if _, err := g.run("eject", "Bench", "--no-save"); err != nil {
		return err
	}
	return firstSaveAfterLoad(r, g, n)
}

// firstSaveAfterLoad measures `rambar save` of one changed file right
// after `rambar create --mirror` loaded a folder of n files, against rsync
// -a --delete from the disk to a copy of the folder; the median of
// firstSaveRounds loads each way: with the agent running (the load's own
// walk is the agent's feed's first, so the save reads what changed: the
// target), and from a terminal with no agent (the save walks the disk).
func firstSaveAfterLoad(r *report, g *rambarRig, n int) error {
	name := fmt.Sprintf("mirror, %d files like a checkout", n)
	folder, rs := filepath.Join(g.work, "folder"), filepath.Join(g.work, "rsync-folder")
	fmt.Printf("%s: generating...\n", name)
	if _, err := generate(folder, n); err != nil {
		return err
	}
	if _, err := timed(g.work, "rsync", "-a", "--delete", folder+"/", rs+"/"); err != nil {
		return err
	}
	for _, agent := range []bool{true, false} {
		how := "with the agent running"
		if !agent {
			how = "from a terminal, no agent"
		}
		if agent {
			if err := g.startAgent(); err != nil {
				return err
			}
		}
		ours, theirs, err := loadAndSave(g, folder, rs, name+", "+how)
		g.stopAgent()
		if err != nil {
			return err
		}
		target := 5.0
		if !agent {
			target = 0 // it walks the whole disk: a figure, not a promise
		}
		r.ratio(fmt.Sprintf("%s: first rambar save after the load, 1 changed, %s, vs rsync -a --delete", name, how), median(ours), median(theirs), target)
	}
	return nil
}

// loadAndSave makes a Mirror disk of folder firstSaveRounds times and
// times the first save after each load (one file changed) and rsync of the
// same disk into rs.
func loadAndSave(g *rambarRig, folder, rs, name string) (ours, theirs []time.Duration, err error) {
	vol := filepath.Join(g.root, "Site")
	for round := range firstSaveRounds {
		load, err := g.run("create", "Site", "4G", "--mirror", folder)
		if err != nil {
			return nil, nil, err
		}
		if err := changeFew(filesOf(vol), 1, round); err != nil {
			return nil, nil, err
		}
		d, err := g.run("save", "Site")
		if err != nil {
			return nil, nil, err
		}
		ours = append(ours, d)
		rt, err := timed(g.work, "rsync", "-a", "--delete", vol+"/", rs+"/")
		if err != nil {
			return nil, nil, err
		}
		theirs = append(theirs, rt)
		fmt.Printf("%s, round %d: load %v, first save %v, rsync %v\n", name, round+1, load.Round(time.Millisecond), d.Round(time.Millisecond), rt.Round(time.Millisecond))
		if _, err := g.run("eject", "Site"); err != nil {
			return nil, nil, err
		}
	}
	return ours, theirs, nil
}
