package runtest

import (
	"context"
	"strings"
	"testing"

	"rambar/internal/run"
)

func TestScriptAnswersInOrder(t *testing.T) {
	s := NewScript(t,
		Call{Argv: []string{"hdiutil", "attach", "-nomount", "ram://8"}, Reply: Reply{Stdout: "/dev/disk4          \t                               \t\n"}},
		Call{Argv: []string{"diskutil", "eject", "/dev/disk4"}, Reply: Reply{Stderr: "busy", Exit: 1}},
	)
	out, err := run.Output(context.Background(), s, "hdiutil", "attach", "-nomount", "ram://8")
	if err != nil || !strings.HasPrefix(string(out), "/dev/disk4") {
		t.Fatalf("first call: %q %v", out, err)
	}
	_, err = run.Output(context.Background(), s, "diskutil", "eject", "/dev/disk4")
	if run.ExitCode(err) != 1 {
		t.Fatalf("second call: %v", err)
	}
}

func TestFuncSeesStdin(t *testing.T) {
	var got string
	f := Func(func(argv []string, stdin string) Reply { got = stdin; return Reply{Stdout: "ok"} })
	res, err := f.Run(context.Background(), run.Cmd{Argv: []string{"x"}, Stdin: strings.NewReader("in")})
	if err != nil || string(res.Stdout) != "ok" || got != "in" {
		t.Errorf("got %q %v stdin %q", res.Stdout, err, got)
	}
}
