//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBashCompletion loads `rambar completion bash` into a real bash and
// completes as the shell would.
func TestBashCompletion(t *testing.T) {
	bin := rambarBinary(t)
	script := `source <(rambar completion bash)
complete -p rambar
for line in "preset ad" "login st" "create X 1G --h"; do
	read -ra COMP_WORDS <<< "rambar $line"
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_rambar
	echo "$line => ${COMPREPLY[*]}"
done`
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "RAMBAR_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	for _, want := range []string{"complete -o default -F _rambar rambar", "preset ad => add", "login st => status", "create X 1G --h => --help --hidden"} {
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
