package config

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ParseYAML reads a reference-style config.yaml (nested maps, as written by
// the reference implementation's `metaclaw setup`) and returns the changes
// it makes, by canonical key, and the keys it names that MetaClaw does not
// know. Values are validated: a file with any bad value is refused whole.
// When a key and its alias are both set, the non-empty one wins, the
// canonical key first.
func ParseYAML(data []byte) (changes map[string]string, unknown []string, err error) {
	changes, refused, unknown, err := ParseYAMLPartial(data)
	if err != nil {
		return nil, nil, err
	}
	if len(refused) > 0 {
		return nil, unknown, refused
	}
	return changes, unknown, nil
}

// ParseYAMLPartial is ParseYAML that keeps the good values of a file with
// bad ones: it returns the valid changes, the refused values and the
// unknown keys; err is set only when the file is not YAML.
func ParseYAMLPartial(data []byte) (changes map[string]string, refused Errors, unknown []string, err error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, nil, fmt.Errorf("parse yaml: %w", err)
	}
	raw := map[string]string{}
	if len(root.Content) > 0 {
		if err := flatten(root.Content[0], "", raw, &unknown); err != nil {
			return nil, nil, nil, err
		}
	}
	changes = map[string]string{}
	for _, k := range sortedKeys(raw) {
		f, v, err := Normalize(k, raw[k])
		if err != nil {
			refused = append(refused, err.(*Error))
			continue
		}
		if prev, ok := changes[f.Key]; ok && (prev != "" && k != f.Key || v == "") {
			continue // keep the canonical or non-empty value
		}
		changes[f.Key] = v
	}
	sort.Strings(unknown)
	return changes, refused, unknown, nil
}

func flatten(n *yaml.Node, prefix string, out map[string]string, unknown *[]string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("parse yaml: %s: expected a mapping, found %s", strings.TrimSuffix(prefix, "."), kindName(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := prefix + n.Content[i].Value
		v := n.Content[i+1]
		switch v.Kind {
		case yaml.MappingNode:
			if err := flatten(v, key+".", out, unknown); err != nil {
				return err
			}
		case yaml.ScalarNode:
			if _, ok := Lookup(key); !ok {
				*unknown = append(*unknown, key)
				continue
			}
			if v.Tag == "!!null" {
				out[key] = ""
			} else {
				out[key] = v.Value
			}
		default:
			if _, ok := Lookup(key); ok {
				return &Error{Key: key, Reason: "expected a single value, found " + kindName(v)}
			}
			*unknown = append(*unknown, key)
		}
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a value"
	}
	return "nothing"
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// YAML renders the configuration in the reference layout, with each key's
// doc as a comment. Secrets are left empty unless includeSecrets is set.
func (c *Config) YAML(includeSecrets bool) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range Fields() {
		parent := root
		parts := strings.Split(f.Key, ".")
		for _, p := range parts[:len(parts)-1] {
			parent = child(parent, p)
		}
		v := c.get(f)
		if f.Secret && !includeSecrets {
			v = ""
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: parts[len(parts)-1], LineComment: f.Doc}
		val := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
		if f.Kind == String {
			val.Tag, val.Style = "!!str", yaml.DoubleQuotedStyle
		}
		parent.Content = append(parent.Content, k, val)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	return buf.Bytes(), enc.Close()
}

func child(parent *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(parent.Content); i += 2 {
		if parent.Content[i].Value == name {
			return parent.Content[i+1]
		}
	}
	n := &yaml.Node{Kind: yaml.MappingNode}
	parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, n)
	return n
}
