package login

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"rambar/internal/atomicfile"
)

// execReserved are the characters that make an Exec argument need quoting
// (Desktop Entry Specification, "The Exec key").
const execReserved = " \t\n\"'\\><~|&;$*?#()`"

// quoteExecArg quotes one Exec argument: reserved characters put it in double
// quotes with ", `, $ and \ backslash-escaped, and % is doubled (it starts
// field codes), quoted or not.
func quoteExecArg(arg string) string {
	arg = strings.ReplaceAll(arg, "%", "%%")
	if arg != "" && !strings.ContainsAny(arg, execReserved) {
		return arg
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range arg {
		if strings.ContainsRune("\"`$\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// escapeString applies the spec's escapes for values of type string, which
// come on top of the Exec quoting: \\ \n \t \r.
func escapeString(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s)
}

// desktopEntry is the autostart file for exe.
func desktopEntry(exe string) []byte {
	var b bytes.Buffer
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	b.WriteString("Name=RAMBar\n")
	b.WriteString("Comment=RAM disks in the menu bar, made again at login\n")
	b.WriteString("Exec=" + escapeString(quoteExecArg(exe)) + "\n")
	b.WriteString("TryExec=" + escapeString(exe) + "\n")
	b.WriteString("Terminal=false\n")
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	return b.Bytes()
}

// readEntry reads the [Desktop Entry] group's keys (no locale variants).
func readEntry(data []byte) map[string]string {
	kv := map[string]string{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			in = line == "[Desktop Entry]"
		case in:
			if k, v, ok := strings.Cut(line, "="); ok {
				kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	return kv
}

// unescapeString undoes escapeString.
func unescapeString(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\s`, " ").Replace(s)
}

func (it *Item) statusLinux() (Status, error) {
	st := Status{Path: it.Path()}
	data, err := os.ReadFile(it.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read login item: %w", err)
	}
	kv := readEntry(data)
	// Desktops hide an entry with Hidden=true; GNOME also honours its own key.
	st.Enabled = kv["Hidden"] != "true" && kv["X-GNOME-Autostart-enabled"] != "false" && kv["Exec"] != ""
	st.Program = unescapeString(kv["TryExec"])
	st.Stale = st.Program != it.Executable
	return st, nil
}

func (it *Item) enableLinux() error {
	if err := os.MkdirAll(it.Dir, 0o755); err != nil {
		return fmt.Errorf("login item: %w", err)
	}
	if err := atomicfile.WriteFile(it.Path(), desktopEntry(it.Executable), 0o644); err != nil {
		return fmt.Errorf("login item: %w", err)
	}
	return nil
}

func (it *Item) disableLinux() error {
	if err := os.Remove(it.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("login item: %w", err)
	}
	return nil
}
