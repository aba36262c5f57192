package ramdisk

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestAddPreset(t *testing.T) {
	base := func() Settings {
		s := DefaultSettings()
		s.Presets = []Preset{{Name: "Scratch", Size: "1G"}}
		return s
	}
	tests := []struct {
		name    string
		p       Preset
		wantErr error // nil: must succeed; errAny: any error
	}{
		{"plain", Preset{Name: "Cache", Size: "512M"}, nil},
		{"percent", Preset{Name: "Cache", Size: "25%", FS: HFSPlus, AutoMount: true}, nil},
		{"keep with saving", Preset{Name: "Cache", Size: "1G", Contents: Keep, SaveEvery: 600, Snapshots: 2}, nil},
		{"mirror", Preset{Name: "Cache", Size: "1G", Contents: Mirror, MirrorPath: "/srv/cache"}, nil},
		{"same name other case", Preset{Name: "scratch", Size: "1G"}, ErrPresetExists},
		{"bad name", Preset{Name: "a/b", Size: "1G"}, ErrName},
		{"control char", Preset{Name: "a\tb", Size: "1G"}, ErrName},
		{"zero size", Preset{Name: "Cache", Size: "0"}, ErrSize},
		{"negative size", Preset{Name: "Cache", Size: "-1G"}, ErrSize},
		{"unknown unit", Preset{Name: "Cache", Size: "3.5Q"}, ErrSize},
		{"unknown fs", Preset{Name: "Cache", Size: "1G", FS: "fat32"}, ErrFileSystem},
		{"relative mirror", Preset{Name: "Cache", Size: "1G", Contents: Mirror, MirrorPath: "cache"}, errAny},
		{"saving discarded", Preset{Name: "Cache", Size: "1G", SaveEvery: 60}, errAny},
		{"snapshots discarded", Preset{Name: "Cache", Size: "1G", Snapshots: 3}, errAny},
		{"mirror path on keep", Preset{Name: "Cache", Size: "1G", Contents: Keep, MirrorPath: "/srv/x"}, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			err := s.AddPreset(tt.p, 16*GiB)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("AddPreset: %v", err)
			case tt.wantErr == nil:
				if got, ok := s.Preset(tt.p.Name); !ok || !reflect.DeepEqual(*got, tt.p) {
					t.Errorf("added preset = %+v, want %+v", got, tt.p)
				}
				return
			case err == nil:
				t.Fatalf("AddPreset succeeded, want an error")
			case tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Errorf("got %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(s, base()) {
				t.Errorf("a refused add changed the settings: %+v", s)
			}
		})
	}
}

var errAny = errors.New("any error")

func TestEditPreset(t *testing.T) {
	base := func() Settings {
		s := DefaultSettings()
		s.Presets = []Preset{
			{Name: "Scratch", Size: "1G"},
			{Name: "Kept", Size: "2G", FS: HFSPlus, AutoMount: true, Contents: Keep, SaveEvery: 600, Snapshots: 3},
			{Name: "Mirrored", Size: "2G", Contents: Mirror, MirrorPath: "/srv/m", SaveEvery: 60},
		}
		return s
	}
	tests := []struct {
		name    string
		preset  string
		c       PresetChange
		want    Preset
		wantErr error
	}{
		{"size and fs", "scratch", PresetChange{Size: ptr("4G"), FS: ptr(APFS)},
			Preset{Name: "Scratch", Size: "4G", FS: APFS}, nil},
		{"auto-mount off", "Kept", PresetChange{AutoMount: ptr(false)},
			Preset{Name: "Kept", Size: "2G", FS: HFSPlus, Contents: Keep, SaveEvery: 600, Snapshots: 3}, nil},
		{"discard clears saving", "Kept", PresetChange{Contents: ptr(Discard)},
			Preset{Name: "Kept", Size: "2G", FS: HFSPlus, AutoMount: true}, nil},
		{"mirror to keep clears folder", "Mirrored", PresetChange{Contents: ptr(Keep)},
			Preset{Name: "Mirrored", Size: "2G", Contents: Keep, SaveEvery: 60}, nil},
		{"keep to mirror", "Kept", PresetChange{Contents: ptr(Mirror), MirrorPath: ptr("/srv/k")},
			Preset{Name: "Kept", Size: "2G", FS: HFSPlus, AutoMount: true, Contents: Mirror, MirrorPath: "/srv/k", SaveEvery: 600, Snapshots: 3}, nil},
		{"missing", "Nope", PresetChange{Hidden: ptr(true)}, Preset{}, ErrNoPreset},
		{"missing is not found", "Nope", PresetChange{Hidden: ptr(true)}, Preset{}, ErrNotFound},
		{"bad size", "Scratch", PresetChange{Size: ptr("0")}, Preset{}, ErrSize},
		{"mirror without folder", "Scratch", PresetChange{Contents: ptr(Mirror)}, Preset{}, errAny},
		{"saving on discarded", "Scratch", PresetChange{SaveEvery: ptr(60)}, Preset{}, errAny},
		{"negative snapshots", "Kept", PresetChange{Snapshots: ptr(-1)}, Preset{}, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			got, err := s.EditPreset(tt.preset, tt.c, 16*GiB)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("EditPreset: %v", err)
				}
				stored, _ := s.Preset(tt.want.Name)
				if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(*stored, tt.want) {
					t.Errorf("got %+v, stored %+v, want %+v", got, *stored, tt.want)
				}
				return
			}
			if err == nil || (tt.wantErr != errAny && !errors.Is(err, tt.wantErr)) {
				t.Errorf("got %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(s, base()) {
				t.Errorf("a refused edit changed the settings: %+v", s)
			}
		})
	}
}

func TestRemovePreset(t *testing.T) {
	s := DefaultSettings()
	s.Presets = []Preset{{Name: "A", Size: "1G"}, {Name: "B", Size: "1G", AutoMount: true}, {Name: "C", Size: "1G", AutoMount: true}}
	p, err := s.RemovePreset("b")
	if err != nil || p.Name != "B" {
		t.Fatalf("RemovePreset(b) = %+v, %v", p, err)
	}
	if got := s.AutoMountPresets(); len(got) != 1 || got[0].Name != "C" {
		t.Errorf("AutoMountPresets after removal = %+v", got)
	}
	if _, err := s.RemovePreset("B"); !errors.Is(err, ErrNoPreset) || !errors.Is(err, ErrNotFound) {
		t.Errorf("second removal: %v, want ErrNoPreset", err)
	}
	if len(s.Presets) != 2 || s.Presets[0].Name != "A" || s.Presets[1].Name != "C" {
		t.Errorf("presets = %+v", s.Presets)
	}
}

func TestFindPreset(t *testing.T) {
	s := DefaultSettings()
	if _, err := s.FindPreset("A"); !errors.Is(err, ErrNoPreset) || !strings.Contains(err.Error(), "there are none") {
		t.Errorf("empty settings: %v", err)
	}
	s.Presets = []Preset{{Name: "Beta", Size: "1G"}, {Name: "Alpha", Size: "2G"}}
	if p, err := s.FindPreset("alpha"); err != nil || p.Size != "2G" {
		t.Errorf("FindPreset(alpha) = %+v, %v", p, err)
	}
	_, err := s.FindPreset("Gamma")
	if !errors.Is(err, ErrNoPreset) || !strings.Contains(err.Error(), "(presets: Alpha, Beta)") {
		t.Errorf("FindPreset(Gamma) = %v", err)
	}
}
