package main

import (
	"os"
	"path/filepath"
	"time"

	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/settings"
	"transportlab/emulator/internal/version"
)

// defaultPlatform's transcripts are the *.txt files of the transcripts
// directory itself; every other platform has its own subdirectory
// (transcripts/arista_eos/).
const defaultPlatform = "cisco_iosxe"

// newEngine builds the command engine the settings describe; serve and
// every shell process build the same one, on the daemon's configuration
// store (in-process or through its socket). A nil config gives the engine
// a private in-memory store.
func newEngine(s settings.Settings, config engine.ConfigStore) (*engine.Engine, error) {
	dir := s.TranscriptsDir
	if s.Platform != defaultPlatform {
		dir = filepath.Join(dir, s.Platform)
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
	}
	transcripts, err := engine.LoadTranscripts(dir)
	if err != nil {
		return nil, err
	}
	return engine.New(engine.Options{
		Hostname:      s.Hostname,
		Platform:      s.Platform,
		Version:       version.Version,
		StartedAt:     s.StartedAt,
		CommandDelay:  time.Duration(s.CommandDelayMS) * time.Millisecond,
		CommandJitter: time.Duration(s.CommandJitterMS) * time.Millisecond,
		Config:        config,
	}, transcripts)
}
