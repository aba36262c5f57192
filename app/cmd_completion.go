package main

import (
	"context"
	"fmt"
	"rambar/i18n"
	"sort"
	"strings"
)

func init() {
	register(&command{Name: "completion", Summary: i18n.N("print a shell's completion script (bash, zsh or fish)"),
		Doc: i18n.N("The script completes commands, sub-commands, flags, file systems, and the names of mounted disks " +
			"and presets, from the same table as the help. Load it from your shell's start-up file."),
		Args:    []arg{{Name: "SHELL", Doc: i18n.N("bash, zsh or fish")}},
		Example: "completion bash > /etc/bash_completion.d/rambar\ncompletion zsh > \"${fpath[1]}/_rambar\"",
		Order:   92, Run: runCompletion})
	register(&command{Name: "__complete", Hidden: true, Summary: i18n.N("list completions for a command line (used by the scripts)"),
		Args: []arg{{Name: "WORD", Optional: true, Repeat: true}}, Example: "__complete preset ad", Run: runComplete})
}

// completionScripts call `rambar __complete` with the words typed so far,
// the one being completed last.
var completionScripts = map[string]string{
	"bash": `_rambar() {
	local IFS=$'\n'
	COMPREPLY=($(rambar __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _rambar rambar
`,
	"zsh": `#compdef rambar
_rambar() {
	local -a c
	c=("${(@f)$(rambar __complete -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	compadd -a c
}
compdef _rambar rambar
`,
	"fish": `complete -c rambar -f -a '(rambar __complete -- (commandline -opc)[2..-1] (commandline -ct))'
`,
}

func runCompletion(ctx context.Context, a *App, in *input) error {
	s, ok := completionScripts[in.Args[0]]
	if !ok {
		return usagef("completion: no script for %q; use bash, zsh or fish", in.Args[0])
	}
	fmt.Fprint(a.Stdout, s)
	return nil
}

// runComplete prints, one a line, what can follow the words given: the
// last one is the word being typed (maybe "").
func runComplete(ctx context.Context, a *App, in *input) error {
	words := in.Args
	if len(words) == 0 {
		words = []string{""}
	}
	for _, c := range a.completions(ctx, words[:len(words)-1], words[len(words)-1]) {
		fmt.Fprintln(a.Stdout, c)
	}
	return nil
}

// completions are the candidates for word after the words before it.
func (a *App) completions(ctx context.Context, before []string, word string) []string {
	if len(before) == 0 {
		return withPrefix(visibleNames(topLevel()), word)
	}
	c, ok := commands[before[0]]
	if !ok {
		return nil
	}
	rest := before[1:]
	if len(c.Subs) > 0 {
		if len(rest) == 0 {
			return withPrefix(visibleNames(c.Subs), word)
		}
		if c = c.sub(rest[0]); c == nil {
			return nil
		}
		rest = rest[1:]
	}
	if len(rest) > 0 {
		if f, ok := c.flag(strings.TrimLeft(rest[len(rest)-1], "-")); ok && strings.HasPrefix(rest[len(rest)-1], "-") &&
			f.Kind != boolFlag && !strings.Contains(rest[len(rest)-1], "=") {
			return withPrefix(a.flagValues(f, word), word)
		}
	}
	if flag, value, ok := strings.Cut(word, "="); ok && strings.HasPrefix(flag, "--") {
		if f, ok := c.flag(strings.TrimPrefix(flag, "--")); ok && f.Kind != boolFlag {
			var out []string
			for _, v := range a.flagValues(f, value) {
				out = append(out, flag+"="+v)
			}
			return withPrefix(out, word)
		}
	}
	if strings.HasPrefix(word, "-") {
		var names []string
		for _, f := range append(c.flags(), helpFlag) {
			names = append(names, "--"+f.Name)
		}
		return withPrefix(names, word)
	}
	return withPrefix(a.argValues(ctx, c, positionals(c, rest)), word)
}

// positionals counts the positional arguments among words (skipping flags
// and their values), so the next one's declaration can be found.
func positionals(c *command, words []string) int {
	n := 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || isNegativeNumber(w) {
			n++
			continue
		}
		if f, ok := c.flag(strings.TrimLeft(w, "-")); ok && f.Kind != boolFlag && !strings.Contains(w, "=") {
			i++ // its value
		}
	}
	return n
}

// flagValues are the values worth offering for a flag, word being typed:
// --fs takes what this machine's engine makes, --rows the benchmark's rows
// and --caches the known caches (each a comma-separated list, completed
// after its last comma).
func (a *App) flagValues(f flagSpec, word string) []string {
	switch f.Name {
	case "rows":
		return listValues(word, rowIDs())
	case "caches":
		return listValues(word, cacheKeys())
	case "fs":
	default:
		return nil
	}
	e, err := a.Engine()
	if err != nil {
		return nil
	}
	var out []string
	for _, fs := range e.Caps().FileSystems {
		out = append(out, string(fs))
	}
	return out
}

// listValues completes the last item of a comma-separated list: what is
// typed up to its last comma, then each value.
func listValues(word string, values []string) []string {
	head := ""
	if i := strings.LastIndex(word, ","); i >= 0 {
		head = word[:i+1]
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = head + v
	}
	return out
}

// cacheKeys are the known caches' keys ('cache on NAME KEY').
func cacheKeys() []string {
	var out []string
	for _, k := range knownCaches() {
		out = append(out, k.Key)
	}
	return out
}

// argValues are the values for the command's next positional argument:
// mounted disks for a disk's NAME (and bench's TARGET), presets for a
// preset's, the known caches for a cache TARGET.
func (a *App) argValues(ctx context.Context, c *command, n int) []string {
	if len(c.Args) == 0 {
		return nil
	}
	if n >= len(c.Args) {
		if last := c.Args[len(c.Args)-1]; !last.Repeat {
			return nil
		}
		n = len(c.Args) - 1
	}
	switch {
	case c.Args[n].Name == "TARGET" && c.parent != nil && c.parent.Name == "cache":
		return cacheKeys()
	case c.Args[n].Name == "TARGET" && c.Name == "bench":
	case c.Args[n].Name != "NAME" || c.Name == "create" || c.Name == "add":
		return nil
	case c.parent != nil && c.parent.Name == "preset":
		return a.presetNames()
	}
	e, err := a.Engine()
	if err != nil {
		return nil
	}
	vs, err := e.List(ctx)
	if err != nil {
		return nil
	}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	return names
}

func (a *App) presetNames() []string {
	st, err := a.Store()
	if err != nil {
		return nil
	}
	s, err := st.Load()
	if err != nil {
		return nil
	}
	var names []string
	for _, p := range s.Presets {
		names = append(names, p.Name)
	}
	return names
}

// withPrefix keeps the candidates that begin with word, sorted.
func withPrefix(cands []string, word string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, word) {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}
