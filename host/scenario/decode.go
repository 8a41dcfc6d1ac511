package scenario

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/host/internal/safeio"
)

// Limits on a scenario file, so that no file, however written, costs more
// than milliseconds to refuse: viper expands every alias (a 600-byte alias
// bomb expands to billions of values) and takes time cubic in the nesting
// depth.
const (
	MaxFileSize = 1 << 20 // bytes of YAML
	MaxDepth    = 64      // nesting of mappings and lists, aliases expanded
	MaxNodes    = 250_000 // keys and values, aliases expanded
)

// parseYAML checks the syntax of data with yaml.v3, which reports line
// numbers (viper does not), and returns the mapping node at the top of the
// document for locating keys in later error messages. It also rejects what
// viper would silently mangle: keys that differ only in case (viper
// lower-cases keys, so one would overwrite the other), keys containing '.'
// (viper's nesting delimiter) and non-string keys.
//
// It refuses, before anything expands an alias, files beyond MaxFileSize,
// MaxDepth or MaxNodes.
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
	root := doc.Content[0]
	if root.Kind == yaml.AliasNode {
		root = root.Alias
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Source: source, Line: root.Line, Msg: fmt.Sprintf("the top level must be a mapping of keys (name:, environment:, ...), got %s", nodeKind(root))}
	}
	var errs []error
	checkKeys(source, root, "", &errs, 0)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return root, nil
}

// checkKeys walks the mapping keys under n, reporting keys viper would
// mangle.
func checkKeys(source string, n *yaml.Node, path string, errs *[]error, depth int) {
	if depth > 32 {
		return // alias cycles or absurd nesting; viper will complain if needed
	}
	switch n.Kind {
	case yaml.AliasNode:
		checkKeys(source, n.Alias, path, errs, depth+1)
	case yaml.SequenceNode:
		for i, c := range n.Content {
			checkKeys(source, c, fmt.Sprintf("%s[%d]", path, i), errs, depth+1)
		}
	case yaml.MappingNode:
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				checkKeys(source, val, path, errs, depth+1)
				continue
			}
			full := joinPath(path, k.Value)
			switch {
			case k.Kind != yaml.ScalarNode || k.Tag != "!!str":
				*errs = append(*errs, &Error{Source: source, Field: path, Line: k.Line,
					Msg: fmt.Sprintf("key %s is not a string", strconv.Quote(k.Value))})
				continue
			case strings.Contains(k.Value, "."):
				*errs = append(*errs, &Error{Source: source, Field: full, Line: k.Line,
					Msg: "keys must not contain '.' (viper reads it as nesting)"})
				continue
			}
			low := strings.ToLower(k.Value)
			if prev, ok := seen[low]; ok {
				msg := fmt.Sprintf("duplicate key (also line %d)", prev.Line)
				if prev.Value != k.Value {
					msg = fmt.Sprintf("duplicate key: keys are case-insensitive and %q is at line %d", prev.Value, prev.Line)
				}
				*errs = append(*errs, &Error{Source: source, Field: full, Line: k.Line, Msg: msg})
				continue
			}
			seen[low] = k
			checkKeys(source, val, full, errs, depth+1)
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return "a scalar " + strconv.Quote(n.Value)
	}
	return "something else"
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
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var next *yaml.Node
		switch {
		case m[1] != "" && n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if strings.EqualFold(n.Content[i].Value, m[1]) {
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
	var de *mapstructure.DecodeError
	var se *Error
	if errors.As(err, &de) && de == err || errors.As(err, &se) && se == err {
		return []error{err}
	}
	if inner := errors.Unwrap(err); inner != nil {
		return flatten(inner) // e.g. viper's "decoding failed due to ..." wrapper
	}
	return []error{err}
}

// validKeys lists the keys allowed at each level, from the mapstructure
// tags, for the "unknown key" message.
var validKeys = map[string]string{
	"":            tagsOf(reflect.TypeFor[Scenario]()),
	"environment": tagsOf(reflect.TypeFor[Environment]()),
	"policies":    tagsOf(reflect.TypeFor[Policy]()),
}

func tagsOf(t reflect.Type) string {
	var keys []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("mapstructure"); tag != "" && tag != "-" {
			keys = append(keys, tag)
		}
	}
	return strings.Join(keys, ", ")
}

var indexSuffix = regexp.MustCompile(`\[\d+\]`)

// decodeErrors turns mapstructure's errors into *Error values naming the
// source, the key path and its line.
func decodeErrors(source string, root *yaml.Node, err error) error {
	topName := reflect.TypeFor[Scenario]().String()
	var out []error
	for _, e := range flatten(err) {
		var de *mapstructure.DecodeError
		if !errors.As(e, &de) {
			out = append(out, &Error{Source: source, Msg: e.Error()})
			continue
		}
		name := de.Name()
		if name == topName {
			name = ""
		}
		inner := de.Unwrap()
		if keys, ok := strings.CutPrefix(inner.Error(), "has invalid keys: "); ok {
			hint := ""
			if v, ok := validKeys[indexSuffix.ReplaceAllString(name, "")]; ok {
				hint = " (valid keys: " + v + ")"
			}
			for _, k := range strings.Split(keys, ", ") {
				full := joinPath(name, k)
				out = append(out, &Error{Source: source, Line: lineOf(root, full),
					Msg: fmt.Sprintf("unknown key %q%s", full, hint)})
			}
			continue
		}
		out = append(out, &Error{Source: source, Field: name, Line: lineOf(root, name), Msg: decodeMessage(inner)})
	}
	return errors.Join(out...)
}

// decodeMessage rewrites one mapstructure message for people.
func decodeMessage(err error) string {
	var ue *mapstructure.UnconvertibleTypeError
	if errors.As(err, &ue) {
		return fmt.Sprintf("expected %s, got %s", typeName(ue.Expected.Type()), describe(ue.Value))
	}
	var pe *mapstructure.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("expected %s, got %s: %v", typeName(pe.Expected.Type()), describe(pe.Value), pe.Err)
	}
	msg := err.Error()
	if got, ok := strings.CutPrefix(msg, "source data must be an array or slice, got "); ok {
		return "expected a list, got " + got
	}
	if got, ok := strings.CutPrefix(msg, "expected a map or struct, got "); ok {
		return "expected a mapping, got " + strings.Trim(got, `"`)
	}
	if got, ok := strings.CutPrefix(msg, "expected a map, got "); ok {
		return "expected a mapping, got " + strings.Trim(got, `'"`)
	}
	return msg
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

// strictNumbers is the only decode hook: it refuses what mapstructure would
// silently truncate or wrap (2.5 into an int, -1 into a uint64).
func strictNumbers(_ reflect.Type, to reflect.Type, data any) (any, error) {
	switch to.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		switch x := data.(type) {
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) >= 1<<62 {
				return nil, fmt.Errorf("expected int, got %s", describe(x))
			}
			return int64(x), nil
		case uint64:
			if x > math.MaxInt64 {
				return nil, fmt.Errorf("expected int, got %d (too large)", x)
			}
			return int64(x), nil
		}
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		switch x := data.(type) {
		case int:
			if x < 0 {
				return nil, fmt.Errorf("expected non-negative int, got %d", x)
			}
			return uint64(x), nil
		case int64:
			if x < 0 {
				return nil, fmt.Errorf("expected non-negative int, got %d", x)
			}
			return uint64(x), nil
		case float64:
			if x != math.Trunc(x) || x < 0 || x >= 1<<64 || math.IsNaN(x) {
				return nil, fmt.Errorf("expected non-negative int, got %s", describe(x))
			}
			return uint64(x), nil
		}
	}
	return data, nil
}
