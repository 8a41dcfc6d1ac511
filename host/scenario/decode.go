package scenario

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/host/internal/safeio"
	"github.com/regretbench/regretbench/internal/seed"
)

// Limits on a scenario file, so that no file, however written, costs more
// than milliseconds to refuse: decoding expands every alias (a 600-byte
// alias bomb expands to billions of values).
const (
	MaxFileSize = 1 << 20 // bytes of YAML
	MaxDepth    = 64      // nesting of mappings and lists, aliases expanded
	MaxNodes    = 250_000 // keys and values, aliases expanded
)

// parseYAML parses data with yaml.v3 into a node tree and returns the
// mapping node at the top of the document. It refuses, before anything
// expands an alias, files beyond MaxFileSize, MaxDepth or MaxNodes.
func parseYAML(source string, data []byte) (*yaml.Node, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{Source: source, Msg: fmt.Sprintf("file too large: %d bytes, the limit is %s", len(data), safeio.Bytes(MaxFileSize))}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.ReplaceAll(msg, "\n  ", "; ")
		return nil, &Error{Source: source, Msg: "invalid YAML: " + msg}
	}
	if err := safeio.CheckYAML(&doc, safeio.YAMLLimits{Depth: MaxDepth, Nodes: MaxNodes}); err != nil {
		var ye *safeio.YAMLError
		if errors.As(err, &ye) {
			return nil, &Error{Source: source, Line: ye.Line, Msg: ye.Msg}
		}
		return nil, &Error{Source: source, Msg: err.Error()}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &Error{Source: source, Msg: "empty file; a scenario needs at least environment, horizon, runs and policies"}
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Source: source, Line: root.Line, Msg: fmt.Sprintf("the top level must be a mapping of keys (name:, environment:, ...), got %s", nodeKind(root))}
	}
	return root, nil
}

// resolve follows aliases to the node they name. safeio.CheckYAML has
// refused alias cycles; the bound is a second guard.
func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < MaxDepth; depth++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// nodeKind names what a node holds, for "expected X, got Y" messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err == nil {
			return describe(v)
		}
		return "a scalar " + strconv.Quote(n.Value)
	}
	return "something else"
}

// decoder decodes a yaml.v3 node tree into a Scenario by the fields'
// yaml tags: keys are matched exactly (case-sensitive), an unknown or
// duplicate key is an error, and numbers are converted only when no
// information is lost. Every error names the key path and its line.
type decoder struct {
	source string
	errs   []error
	set    map[string]bool // key paths given with a non-null value
}

func (d *decoder) fail(field string, line int, format string, args ...any) {
	d.errs = append(d.errs, &Error{Source: d.source, Field: field, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// pair is one key of a mapping and its value.
type pair struct {
	key  string
	k, v *yaml.Node
}

// pairs returns the keys of the mapping n, merge keys (<<) expanded with
// YAML's rules (keys written in n win over merged ones; among merged
// mappings, the first wins). Non-string and duplicate keys are errors.
func (d *decoder) pairs(path string, n *yaml.Node) []pair {
	var out, merged []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			m := resolve(v)
			switch m.Kind {
			case yaml.MappingNode:
				merged = append(merged, d.pairs(path, m)...)
			case yaml.SequenceNode:
				for _, e := range m.Content {
					if e = resolve(e); e.Kind == yaml.MappingNode {
						merged = append(merged, d.pairs(path, e)...)
					} else {
						d.fail(path, e.Line, "a merge key (<<) takes a mapping or a list of mappings, got %s", nodeKind(e))
					}
				}
			default:
				d.fail(path, k.Line, "a merge key (<<) takes a mapping or a list of mappings, got %s", nodeKind(m))
			}
			continue
		}
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			d.fail(path, k.Line, "key %s is not a string", strconv.Quote(k.Value))
			continue
		}
		if prev, ok := seen[k.Value]; ok {
			d.fail(joinPath(path, k.Value), k.Line, "duplicate key (also line %d)", prev.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, pair{k.Value, k, v})
	}
	for _, p := range merged {
		if _, ok := seen[p.key]; !ok {
			seen[p.key] = p.k
			out = append(out, p)
		}
	}
	return out
}

// value decodes n, found at path and line, into v.
func (d *decoder) value(path string, line int, n *yaml.Node, v reflect.Value) {
	n = resolve(n)
	if isNull(n) {
		// Absent, as for a missing key; a `feedback:` written empty is
		// kept, so that it is refused rather than read as immediate.
		if v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Struct {
			v.Set(reflect.New(v.Type().Elem()))
			d.set[path] = true
		}
		return
	}
	d.set[path] = true
	if v.Type() == seedType {
		d.seed(path, line, n, v)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		d.value(path, line, n, p.Elem())
		v.Set(p)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			d.fail(path, line, "expected a mapping, got %s", nodeKind(n))
			return
		}
		d.fields(path, n, v)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(path, line, "expected a list, got %s", nodeKind(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			d.value(fmt.Sprintf("%s[%d]", path, i), e.Line, e, s.Index(i))
		}
		v.Set(s)
	case reflect.Map: // map[string]any: a policy's params
		if n.Kind != yaml.MappingNode {
			d.fail(path, line, "expected a mapping, got %s", nodeKind(n))
			return
		}
		m := reflect.MakeMap(v.Type())
		for _, p := range d.pairs(path, n) {
			e := reflect.New(v.Type().Elem()).Elem()
			d.value(joinPath(path, p.key), p.k.Line, p.v, e)
			m.SetMapIndex(reflect.ValueOf(p.key), e)
		}
		v.Set(m)
	default:
		var x any
		if err := n.Decode(&x); err != nil {
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			d.fail(path, line, "%s", strings.ReplaceAll(msg, "\n  ", "; "))
			return
		}
		if v.Kind() == reflect.Interface {
			if x != nil {
				v.Set(reflect.ValueOf(x))
			}
			return
		}
		if n.Kind != yaml.ScalarNode {
			d.fail(path, line, "expected %s, got %s", typeName(v.Type()), nodeKind(n))
			return
		}
		if msg := setScalar(v, x); msg != "" {
			d.fail(path, line, "%s", msg)
		}
	}
}

var seedType = reflect.TypeFor[seed.Seed]()

// seed decodes a seed: a YAML integer, as the field always took (0x2a in
// YAML is 42, so a YAML integer keeps its meaning), or a string holding a
// secret, "0x" and 64 hex digits (a plain scalar of 64 hex digits is a
// string to YAML already). A malformed string is refused with seed.Parse's
// reason.
func (d *decoder) seed(path string, line int, n *yaml.Node, v reflect.Value) {
	var x any
	if n.Kind == yaml.ScalarNode {
		if err := n.Decode(&x); err != nil {
			d.fail(path, line, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
			return
		}
	}
	if str, ok := x.(string); ok {
		s, err := seed.Parse(str)
		if err != nil {
			d.fail(path, line, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(s))
		return
	}
	if n.Kind != yaml.ScalarNode {
		d.fail(path, line, "expected a non-negative int or a secret seed (0x followed by 64 hex digits), got %s", nodeKind(n))
		return
	}
	var u uint64
	if msg := setScalar(reflect.ValueOf(&u).Elem(), x); msg != "" {
		d.fail(path, line, "%s, or a secret seed (0x followed by 64 hex digits)", msg)
		return
	}
	v.Set(reflect.ValueOf(seed.Int(u)))
}

// fields decodes the mapping n into the struct v by the fields' yaml
// tags. A key that matches no tag is an error; when it matches one up to
// case, the error suggests the tag.
func (d *decoder) fields(path string, n *yaml.Node, v reflect.Value) {
	t := v.Type()
	var names []string
	index := map[string]int{}
	for i := range t.NumField() {
		if name := yamlName(t.Field(i)); name != "" {
			names = append(names, name)
			index[name] = i
		}
	}
	for _, p := range d.pairs(path, n) {
		full := joinPath(path, p.key)
		i, ok := index[p.key]
		if !ok {
			for _, name := range names {
				if strings.EqualFold(name, p.key) {
					d.fail("", p.k.Line, "unknown key %q: keys are case-sensitive; did you mean %q?", full, name)
					ok = true
					break
				}
			}
			if !ok {
				d.fail("", p.k.Line, "unknown key %q (valid keys: %s)", full, strings.Join(names, ", "))
			}
			continue
		}
		d.value(full, p.k.Line, p.v, v.Field(i))
	}
}

// yamlName is the key of a struct field, "" for a field not in the file.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// setScalar stores the YAML scalar x into v, refusing what would lose
// information (2.5 into an int, -1 into a uint64) or change its type
// (a string into a number, a number into a bool); it returns what is
// wrong, or "".
func setScalar(v reflect.Value, x any) string {
	switch v.Kind() {
	case reflect.Int:
		switch y := x.(type) {
		case int:
			v.SetInt(int64(y))
			return ""
		case int64:
			v.SetInt(y)
			return ""
		case uint64:
			if y > math.MaxInt64 {
				return fmt.Sprintf("expected int, got %d (too large)", y)
			}
			v.SetInt(int64(y))
			return ""
		case float64:
			if y != math.Trunc(y) || math.IsInf(y, 0) || math.Abs(y) >= 1<<62 {
				return "expected int, got " + describe(y)
			}
			v.SetInt(int64(y))
			return ""
		}
	case reflect.Uint64:
		switch y := x.(type) {
		case int:
			if y < 0 {
				return fmt.Sprintf("expected non-negative int, got %d", y)
			}
			v.SetUint(uint64(y))
			return ""
		case int64:
			if y < 0 {
				return fmt.Sprintf("expected non-negative int, got %d", y)
			}
			v.SetUint(uint64(y))
			return ""
		case uint64:
			v.SetUint(y)
			return ""
		case float64:
			if y != math.Trunc(y) || y < 0 || y >= 1<<64 || math.IsNaN(y) {
				return "expected non-negative int, got " + describe(y)
			}
			v.SetUint(uint64(y))
			return ""
		}
	case reflect.Float64:
		switch y := x.(type) {
		case int:
			v.SetFloat(float64(y))
			return ""
		case int64:
			v.SetFloat(float64(y))
			return ""
		case uint64:
			v.SetFloat(float64(y))
			return ""
		case float64:
			v.SetFloat(y)
			return ""
		}
	case reflect.Bool:
		if y, ok := x.(bool); ok {
			v.SetBool(y)
			return ""
		}
	case reflect.String:
		if y, ok := x.(string); ok {
			v.SetString(y)
			return ""
		}
	}
	return fmt.Sprintf("expected %s, got %s", typeName(v.Type()), describe(x))
}

var pathSegment = regexp.MustCompile(`([^.\[\]]+)|\[(\d+)\]`)

// lineOf returns the line of the key path (e.g. "policies[2].label") in the
// document rooted at root, or of its deepest existing prefix; 0 if unknown.
func lineOf(root *yaml.Node, path string) int {
	if root == nil || path == "" {
		return 0
	}
	line := 0
	n := root
	for _, m := range pathSegment.FindAllStringSubmatch(path, -1) {
		n = resolve(n)
		var next *yaml.Node
		switch {
		case m[1] != "" && n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == m[1] {
					line, next = n.Content[i].Line, n.Content[i+1]
					break
				}
			}
		case m[2] != "" && n.Kind == yaml.SequenceNode:
			if i, err := strconv.Atoi(m[2]); err == nil && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}

// addLines sets the Line of every *Error in err that has none.
func addLines(root *yaml.Node, err error) error {
	for _, e := range flatten(err) {
		var se *Error
		if errors.As(e, &se) && se.Line == 0 {
			se.Line = lineOf(root, se.Field)
		}
	}
	return err
}

// flatten unwraps joined errors into their leaves.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "int"
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "non-negative int"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "bool (true or false)"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return t.String()
}

// describe names a YAML value's type and shows short scalars.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:37] + "..."
		}
		return "string " + strconv.Quote(x)
	case bool:
		return fmt.Sprintf("bool %v", x)
	case int, int64, uint64:
		return fmt.Sprintf("int %v", x)
	case float64:
		return fmt.Sprintf("number %v", x)
	case []any:
		return "a list"
	case map[string]any, map[any]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
