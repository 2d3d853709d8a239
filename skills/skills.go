// Package skills embeds the Connector Skills (skills/<name>/SKILL.md) that the
// server publishes; the primary one is served at GET /skill.md (protocol 3.0 §4.2).
// A Skill is static text written by the developers: it never holds a secret.
package skills

import (
	"embed"
	"io/fs"
)

// PrimaryName is the protocol-visible name of the primary Connector Skill:
// connector-<connector_card_id> with periods turned into hyphens (§4.2).
const PrimaryName = "connector-device-adb"

// files holds every entry of this directory; the Go sources that come along are
// harmless and never served. The pattern "*" (not "*/SKILL.md") keeps the build
// working while no Skill has been written yet.
//
//go:embed *
var files embed.FS

// FS returns the embedded Skills, one directory per Skill name.
func FS() fs.FS { return files }

// Get returns the SKILL.md of the named Skill and whether it exists.
func Get(name string) ([]byte, bool) {
	b, err := fs.ReadFile(files, name+"/SKILL.md")
	if err != nil {
		return nil, false
	}
	return b, true
}

// Primary returns the primary Skill (PrimaryName) and whether it exists.
// GET /skill.md answers 204 when it does not.
func Primary() ([]byte, bool) { return Get(PrimaryName) }
