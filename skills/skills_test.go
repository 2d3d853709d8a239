package skills

import (
	"bytes"
	"testing"
)

func TestPrimaryHeaderName(t *testing.T) {
	b, ok := Primary()
	if !ok {
		t.Fatal("skills/" + PrimaryName + "/SKILL.md is not embedded")
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
