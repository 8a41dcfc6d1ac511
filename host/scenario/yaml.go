package scenario

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// YAML returns the resolved scenario, every default filled in, as a
// scenario file that Parse accepts.
func (s *Scenario) YAML() ([]byte, error) {
	var n yaml.Node
	if err := n.Encode(s); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Source, err)
	}
	// Write each policy on one line, as the shipped files do.
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "policies" {
			for _, p := range n.Content[i+1].Content {
				p.Style = yaml.FlowStyle
			}
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Source, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", s.Source, err)
	}
	return buf.Bytes(), nil
}
