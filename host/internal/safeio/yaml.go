package safeio

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// YAMLLimits bound what a YAML document may cost its readers, who expand
// every alias (viper and mapstructure walk the expanded tree, some of it
// in time cubic in the depth).
type YAMLLimits struct {
	// Depth is the deepest nesting of mappings and sequences allowed,
	// aliases expanded; the top-level value is at depth 1.
	Depth int
	// Nodes is the largest number of nodes (keys and values) allowed,
	// aliases expanded.
	Nodes int
}

// YAMLError is a YAML document beyond its YAMLLimits, at Line.
type YAMLError struct {
	Line int
	Msg  string
}

func (e *YAMLError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s (line %d)", e.Msg, e.Line)
	}
	return e.Msg
}

// CheckYAML refuses a document (as yaml.Unmarshal into a yaml.Node gives
// it, aliases unexpanded) that is nested deeper than lim.Depth or holds
// more than lim.Nodes nodes once its aliases are expanded, and an alias
// used inside its own anchor. Its cost is linear in the size of the
// unexpanded document: an alias bomb of a few hundred bytes, which would
// expand to billions of nodes, is refused in microseconds. The error is
// a *YAMLError with the line at fault.
func CheckYAML(doc *yaml.Node, lim YAMLLimits) error {
	w := &yamlWalker{lim: lim, memo: map[*yaml.Node]yamlSub{}, busy: map[*yaml.Node]bool{}}
	start := 1
	if doc.Kind == yaml.DocumentNode {
		start = 0
	}
	_, err := w.visit(doc, start)
	return err
}

type yamlSub struct{ nodes, height int }

type yamlWalker struct {
	lim  YAMLLimits
	memo map[*yaml.Node]yamlSub // anchored nodes already measured
	busy map[*yaml.Node]bool    // anchored nodes being measured
}

// visit measures the subtree of n, at depth, aliases expanded.
func (w *yamlWalker) visit(n *yaml.Node, depth int) (yamlSub, error) {
	if depth > w.lim.Depth {
		return yamlSub{}, &YAMLError{Line: n.Line, Msg: fmt.Sprintf("nested more than %d levels deep", w.lim.Depth)}
	}
	if n.Kind == yaml.AliasNode {
		t := n.Alias
		if t == nil {
			return yamlSub{nodes: 1, height: 1}, nil
		}
		if w.busy[t] {
			return yamlSub{}, &YAMLError{Line: n.Line, Msg: fmt.Sprintf("alias *%s is used inside its own anchor &%s", n.Value, n.Value)}
		}
		s, ok := w.memo[t]
		if !ok {
			var err error
			if s, err = w.visit(t, depth); err != nil {
				return yamlSub{}, err
			}
		}
		if depth-1+s.height > w.lim.Depth {
			return yamlSub{}, &YAMLError{Line: n.Line, Msg: fmt.Sprintf("alias *%s nests its anchor (line %d) more than %d levels deep", n.Value, t.Line, w.lim.Depth)}
		}
		return s, nil
	}
	if n.Anchor != "" {
		if s, ok := w.memo[n]; ok {
			return s, nil
		}
		w.busy[n] = true
		defer delete(w.busy, n)
	}
	s := yamlSub{nodes: 1, height: 1}
	if n.Kind == yaml.DocumentNode {
		s = yamlSub{}
	}
	for _, c := range n.Content {
		cs, err := w.visit(c, depth+1)
		if err != nil {
			return yamlSub{}, err
		}
		s.nodes += cs.nodes // cannot overflow: each term is at most lim.Nodes
		s.height = max(s.height, 1+cs.height)
		if s.nodes > w.lim.Nodes {
			return yamlSub{}, &YAMLError{Line: c.Line, Msg: fmt.Sprintf("more than %d values once aliases are expanded (an alias bomb?)", w.lim.Nodes)}
		}
	}
	if n.Anchor != "" {
		w.memo[n] = s
	}
	return s, nil
}
