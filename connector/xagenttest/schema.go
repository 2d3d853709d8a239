package xagenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema file names in testdata/schemas.
const (
	CardSchemaFile       = "xagent.connector.v1.schema.json"
	DescriptorSchemaFile = "xagent.connection.v2.schema.json"
	PacketSchemaFile     = "xagent.connector.packet.v1.schema.json"
)

// Validator checks JSON documents against the public schemas. Safe for
// concurrent use.
type Validator struct {
	card, descriptor, packet *jsonschema.Schema
}

var (
	loadOnce  sync.Once
	loaded    *Validator
	loadError error
)

// SchemaDir returns the module's testdata/schemas directory, found from
// the working directory up to the module's go.mod: a test runs in its
// package's directory, so it works from any package's tests, and unlike
// this source file's own path it holds in a binary built with -trimpath.
func SchemaDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("testdata", "schemas")
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "testdata", "schemas")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, "testdata", "schemas")
		}
	}
}

// LoadValidator compiles the three schemas once per process.
func LoadValidator() (*Validator, error) {
	loadOnce.Do(func() { loaded, loadError = compile(SchemaDir()) })
	return loaded, loadError
}

func compile(dir string) (*Validator, error) {
	c := jsonschema.NewCompiler()
	var out [3]*jsonschema.Schema
	for i, name := range []string{CardSchemaFile, DescriptorSchemaFile, PacketSchemaFile} {
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("load schema: %w", err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("parse schema %s: %w", name, err)
		}
		url := "file:///schemas/" + name
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("add schema %s: %w", name, err)
		}
		if out[i], err = c.Compile(url); err != nil {
			return nil, fmt.Errorf("compile schema %s: %w", name, err)
		}
	}
	return &Validator{card: out[0], descriptor: out[1], packet: out[2]}, nil
}

func validate(s *jsonschema.Schema, what string, b []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", what, err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%s does not match its schema: %w", what, err)
	}
	return nil
}

// Card validates a Connector Card document.
func (v *Validator) Card(b []byte) error { return validate(v.card, "connector card", b) }

// Descriptor validates a Connection Descriptor document.
func (v *Validator) Descriptor(b []byte) error {
	return validate(v.descriptor, "connection descriptor", b)
}

// Packet validates a packet envelope and, when its payload carries a
// connection_descriptor, that Descriptor too.
func (v *Validator) Packet(b []byte) error {
	if err := validate(v.packet, "packet", b); err != nil {
		return err
	}
	var p struct {
		Type    string `json:"type"`
		Payload struct {
			Descriptor json.RawMessage `json:"connection_descriptor"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if len(p.Payload.Descriptor) > 0 {
		if err := v.Descriptor(p.Payload.Descriptor); err != nil {
			return fmt.Errorf("%s: %w", p.Type, err)
		}
	}
	return nil
}
