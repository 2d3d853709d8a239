package skills

import (
	"bytes"
	"testing"
)

func TestPrimaryHeaderName(t *testing.T) {
	b, ok := Primary()
	if !ok {
		t.Skip("skills/" + PrimaryName + "/SKILL.md not written yet")
	}
	if !bytes.Contains(b, []byte("name: "+PrimaryName)) {
		t.Errorf("SKILL.md header must declare name: %s", PrimaryName)
	}
}

func TestGetMissing(t *testing.T) {
	if _, ok := Get("no-such-skill"); ok {
		t.Error("Get(no-such-skill) reported a Skill")
	}
}
