package config

import (
	"encoding/json"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// yamlToJSON converts a YAML document to JSON, recording the line of each
// mapping key by its dotted path so errors can point at it.
func yamlToJSON(data []byte) ([]byte, map[string]int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return []byte("null"), nil, nil
	}
	lines := make(map[string]int)
	v, err := nodeValue(doc.Content[0], "", lines)
	if err != nil {
		return nil, nil, err
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return js, lines, nil
}

func nodeValue(n *yaml.Node, path string, lines map[string]int) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return nodeValue(n.Alias, path, lines)
	case yaml.MappingNode:
		m := make(map[string]any)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: mapping keys must be plain names", k.Line)
			}
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q appears twice", k.Line, p)
			}
			lines[p] = k.Line
			val, err := nodeValue(v, p, lines)
			if err != nil {
				return nil, err
			}
			m[k.Value] = val
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			val, err := nodeValue(c, path+"."+strconv.Itoa(i), lines)
			if err != nil {
				return nil, err
			}
			s = append(s, val)
		}
		return s, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %v", n.Line, err)
		}
		return v, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], path, lines)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}
