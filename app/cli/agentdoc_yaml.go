package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlFormat edits YAML settings files (Hermes) through yaml.v3's node
// tree, which keeps comments and key order.
type yamlFormat struct{}

func (yamlFormat) name() string { return "YAML" }

func (yamlFormat) parse(data []byte) (agentDoc, error) {
	d := &yamlDoc{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &d.root); err != nil {
			return nil, err
		}
	}
	if d.root.Kind == 0 {
		d.root = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if len(d.root.Content) != 1 || d.root.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("the document is not a mapping")
	}
	return d, nil
}

// yamlDoc is a YAML document as a node tree.
type yamlDoc struct{ root yaml.Node }

// lookup returns the mapping holding key's last segment and the index of
// its value node there (-1 when absent); create makes missing mappings.
func (d *yamlDoc) lookup(key []string, create bool) (*yaml.Node, int, error) {
	m := d.root.Content[0]
	for i, seg := range key {
		if m.Kind != yaml.MappingNode {
			return nil, -1, fmt.Errorf("%s is not a mapping", strings.Join(key[:i], "."))
		}
		idx := -1
		for j := 0; j+1 < len(m.Content); j += 2 {
			if m.Content[j].Value == seg {
				idx = j + 1
			}
		}
		if i == len(key)-1 {
			return m, idx, nil
		}
		if idx < 0 {
			if !create {
				return nil, -1, nil
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg},
				&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
			idx = len(m.Content) - 1
		}
		m = m.Content[idx]
	}
	return nil, -1, errors.New("empty key")
}

func (d *yamlDoc) get(key []string) (json.RawMessage, bool, error) {
	m, idx, err := d.lookup(key, false)
	if err != nil || m == nil || idx < 0 {
		return nil, false, err
	}
	var v any
	if err := m.Content[idx].Decode(&v); err != nil {
		return nil, false, err
	}
	raw, err := json.Marshal(v)
	return raw, true, err
}

func (d *yamlDoc) set(key []string, v json.RawMessage) error {
	m, idx, err := d.lookup(key, true)
	if err != nil {
		return err
	}
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		return err
	}
	var n yaml.Node
	if err := n.Encode(x); err != nil {
		return err
	}
	if idx < 0 {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key[len(key)-1]}, &n)
		return nil
	}
	n.HeadComment, n.LineComment = m.Content[idx].HeadComment, m.Content[idx].LineComment
	m.Content[idx] = &n
	return nil
}

func (d *yamlDoc) del(key []string) error {
	m, idx, err := d.lookup(key, false)
	if err != nil || m == nil || idx < 0 {
		return err
	}
	m.Content = append(m.Content[:idx-1], m.Content[idx+1:]...)
	return nil
}

func (d *yamlDoc) bytes() ([]byte, error) {
	if len(d.root.Content[0].Content) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(&d.root); err != nil {
		return nil, err
	}
	return b.Bytes(), e.Close()
}

func (d *yamlDoc) tree() (any, error) {
	var v any
	if err := d.root.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v)
}
