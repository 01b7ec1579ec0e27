package settings

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "device.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadFillsDefaults(t *testing.T) {
	s, err := Load(write(t, `{"hostname":"edge-7","started_at":"2026-11-22T08:00:00Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Hostname != "edge-7" || s.Platform != Defaults.Platform || s.TranscriptsDir != Defaults.TranscriptsDir ||
		s.StartedAt.Hour() != 8 || s.NetconfBase != "1.1" {
		t.Fatalf("got %+v", s)
	}
}

func TestLoadRejectsBadInput(t *testing.T) {
	for _, content := range []string{`{"hostname":"bad name"}`, `{"hostname":"-x"}`, `not json`,
		`{"netconf_base":"2.0"}`, `{"command_delay_ms":-1}`} {
		if _, err := Load(write(t, content)); err == nil {
			t.Errorf("%s accepted", content)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}
