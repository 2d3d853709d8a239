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

// files holds every skills/<name>/SKILL.md.
//
//go:embed */SKILL.md
var files embed.FS

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
