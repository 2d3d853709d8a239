package emulator_test

import "testing"

// TestToyboxTranscripts plays the shell tools' transcripts
// (testdata/toybox: the toybox tools, mksh's builtins, run-as), written by
// hand from the toybox, mksh and AOSP sources their "# source:" lines name
// (see testdata/toybox/SOURCES.md), never recorded from the virtual phone.
func TestToyboxTranscripts(t *testing.T) { playTranscripts(t, "toybox") }
