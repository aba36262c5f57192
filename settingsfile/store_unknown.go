package settingsfile

import (
	"bytes"
	"fmt"
	"rambar/ramdisk"
	"strings"

	"howett.net/plist"
)

// The keys of the current version this RAMBar knows, at the top and in a
// preset. Anything else found in a file of the current version is kept.
var (
	knownSettingsKeys = map[string]bool{"Version": true, "ShowMemoryInTitle": true, "EjectOnQuit": true, "Presets": true, "SaveContinuously": true,
		"CheckForUpdatesDaily": true}
	knownPresetKeys = map[string]bool{"Name": true, "Size": true, "FileSystem": true, "Hidden": true, "AutoMount": true,
		"Contents": true, "MirrorPath": true, "InPlace": true, "SaveEverySeconds": true, "Snapshots": true,
		"NoExec": true, "Folders": true, "MountPoint": true, "Icon": true, "Spotlight": true, "Caches": true, "SaveContinuously": true}
)

// keepUnknown adds to the encoded settings data the keys of old (a file of
// the current version) that this RAMBar does not know: at the top, and in
// each preset still there (matched by name, in any letter case). Without
// such keys data is returned as it is.
func keepUnknown(data, old []byte) ([]byte, error) {
	var prev map[string]any
	if old == nil {
		return data, nil
	}
	if _, err := plist.Unmarshal(old, &prev); err != nil || !sameVersion(prev) {
		return data, nil // an older file: migrated, its keys were read
	}
	top, presets := unknownKeys(prev)
	if len(top) == 0 && len(presets) == 0 {
		return data, nil
	}
	var cur map[string]any
	if _, err := plist.Unmarshal(data, &cur); err != nil {
		return nil, fmt.Errorf("plist decode settings: %w", err)
	}
	for k, v := range top {
		cur[k] = v
	}
	if ps, ok := cur["Presets"].([]any); ok {
		for _, p := range ps {
			d, ok := p.(map[string]any)
			name, _ := d["Name"].(string)
			if !ok {
				continue
			}
			for k, v := range presets[strings.ToLower(name)] {
				d[k] = v
			}
		}
	}
	var b bytes.Buffer
	enc := plist.NewEncoderForFormat(&b, plist.XMLFormat)
	enc.Indent("\t")
	if err := enc.Encode(cur); err != nil {
		return nil, fmt.Errorf("plist encode settings: %w", err)
	}
	return b.Bytes(), nil
}

func sameVersion(m map[string]any) bool {
	switch v := m["Version"].(type) {
	case uint64: // version 3 only added keys to version 2
		return v >= 2 && v <= ramdisk.SettingsVersion
	case int64:
		return v >= 2 && v <= ramdisk.SettingsVersion
	}
	return false
}

// unknownKeys returns the unknown keys at the top of a decoded file and,
// by lower-case preset name, in its presets.
func unknownKeys(m map[string]any) (top map[string]any, presets map[string]map[string]any) {
	top, presets = map[string]any{}, map[string]map[string]any{}
	for k, v := range m {
		if !knownSettingsKeys[k] {
			top[k] = v
		}
	}
	ps, _ := m["Presets"].([]any)
	for _, p := range ps {
		d, ok := p.(map[string]any)
		name, _ := d["Name"].(string)
		if !ok {
			continue
		}
		for k, v := range d {
			if !knownPresetKeys[k] {
				if presets[strings.ToLower(name)] == nil {
					presets[strings.ToLower(name)] = map[string]any{}
				}
				presets[strings.ToLower(name)][k] = v
			}
		}
	}
	return top, presets
}
