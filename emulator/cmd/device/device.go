package main

import (
	"transportlab/emulator/internal/engine"
	"transportlab/emulator/internal/settings"
	"transportlab/emulator/internal/version"
)

// newEngine builds the command engine the settings describe; serve and
// every shell process build the same one.
func newEngine(s settings.Settings) (*engine.Engine, error) {
	transcripts, err := engine.LoadTranscripts(s.TranscriptsDir)
	if err != nil {
		return nil, err
	}
	return engine.New(engine.Options{
		Hostname:  s.Hostname,
		Platform:  s.Platform,
		Version:   version.Version,
		StartedAt: s.StartedAt,
	}, transcripts)
}
