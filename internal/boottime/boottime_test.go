package boottime

import (
	"testing"
	"time"
)

func TestStampsOfOneBootCompare(t *testing.T) {
	a := Now()
	time.Sleep(20 * time.Millisecond)
	b := Now()
	if a.Boot == "" {
		t.Fatal("no boot id on this machine")
	}
	d, ok := b.Sub(a)
	if !ok || d < 20*time.Millisecond {
		t.Errorf("b - a = %v, %v; want at least 20ms", d, ok)
	}
	if d, ok := Since(a); !ok || d < 20*time.Millisecond {
		t.Errorf("Since(a) = %v, %v", d, ok)
	}
	for _, o := range []Stamp{{}, {Boot: "another boot", NS: a.NS}} {
		if _, ok := b.Sub(o); ok {
			t.Errorf("%+v compared with this boot's stamp", o)
		}
	}
}
