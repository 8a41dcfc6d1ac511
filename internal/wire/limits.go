package wire

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/regretbench/regretbench/internal/wire/pb"
)

// Limits on what a plugin may declare in Describe. The host sizes its
// buffers by these declarations before round 1: every diagnostic is kept
// for every replication at every diagnostic checkpoint, and travels in
// every checkpoint's step frame. A plugin beyond them is refused when it
// describes itself (the host checks the Describe answer), and the SDK
// refuses to serve such a Plugin at all, so an author learns at once.
const (
	// MaxDiagnostics bounds the diagnostic names of a plugin. The shipped
	// plugins declare at most 3; 64 diagnostics of 1000 replications are
	// 512 kB per checkpoint, where 20,000 made bench allocate 5 GB before
	// round 1 (issue 15).
	MaxDiagnostics = 64
	// MaxParams bounds the parameters of a plugin; the shipped plugins
	// declare at most 6.
	MaxParams = 64
	// MaxNameLen bounds, in bytes, the plugin's name and the name of each
	// parameter and diagnostic: they are keys in results files and column
	// headings in tables.
	MaxNameLen = 64
	// MaxTextLen bounds, in bytes, the version, the SDK string, each
	// parameter's doc and each string default.
	MaxTextLen = 1024
)

// MaxDescribeMsg bounds the encoded Describe answer the host accepts: a
// plugin at every limit above needs about 150 kB. Decoding a protobuf
// message can allocate tens of times its size (an empty repeated message
// is 2 bytes on the wire, a hundred in memory), so the bound is checked
// by gRPC before decoding.
const MaxDescribeMsg = 256 << 10

// MaxOpenMsg bounds the encoded Open and Close answers the host accepts:
// a session id and a socket path.
const MaxOpenMsg = 64 << 10

// StepMsgLimit bounds the encoded gRPC Step answer of a session of n
// replications and ndiag declared diagnostics, checked by gRPC before
// decoding: an arm takes at most 11 bytes (a tag and a 10-byte varint,
// if not packed), a diagnostic its name and 9 bytes a value, in a
// contextual session a probability 9 bytes, and 1 kB is left for fields
// a later protocol may add.
func StepMsgLimit(n, ndiag int, contextual bool) int {
	probs := 0
	if contextual {
		probs = 9 * n
	}
	return min(1024+11*n+probs+ndiag*(64+MaxNameLen+9*n), MaxMessage)
}

// CheckDescribe checks a plugin's declarations, in their wire form,
// against the limits above, and that names are non-empty and unique. The
// host checks every plugin's answer with it and the SDK every Plugin it is
// asked to serve, so that both refuse the same plugins with the same
// words: its errors are written for the plugin's author and the host's
// user alike.
func CheckDescribe(d *pb.DescribeResponse) error {
	name := d.GetName()
	if name == "" {
		return fmt.Errorf("the plugin's name is empty")
	}
	if err := checkName("the plugin's name", name); err != nil {
		return err
	}
	if err := checkText("version", d.GetVersion()); err != nil {
		return err
	}
	if err := checkText("SDK string", d.GetSdk()); err != nil {
		return err
	}
	params := d.GetParams()
	if len(params) > MaxParams {
		return fmt.Errorf("declares %d parameters, more than the %d allowed (sdk.MaxParams)", len(params), MaxParams)
	}
	seen := make(map[string]bool, len(params))
	for i, p := range params {
		pname := p.GetName()
		if pname == "" {
			return fmt.Errorf("parameter %d has an empty name", i+1)
		}
		if err := checkName(fmt.Sprintf("parameter %q", Truncate(pname, MaxNameLen)), pname); err != nil {
			return err
		}
		if seen[pname] {
			return fmt.Errorf("parameter %q is declared twice", pname)
		}
		seen[pname] = true
		if err := checkText(fmt.Sprintf("doc of parameter %q", pname), p.GetDoc()); err != nil {
			return err
		}
		if s, ok := p.GetDefault().GetKind().(*pb.Value_String_); ok {
			if err := checkText(fmt.Sprintf("default of parameter %q", pname), s.String_); err != nil {
				return err
			}
		}
	}
	diags := d.GetDiagnostics()
	if len(diags) > MaxDiagnostics {
		return fmt.Errorf("declares %d diagnostics, more than the %d allowed (sdk.MaxDiagnostics)", len(diags), MaxDiagnostics)
	}
	clear(seen)
	for i, d := range diags {
		if d == "" {
			return fmt.Errorf("diagnostic %d has an empty name", i+1)
		}
		if err := checkName(fmt.Sprintf("diagnostic %q", Truncate(d, MaxNameLen)), d); err != nil {
			return err
		}
		if seen[d] {
			return fmt.Errorf("diagnostic %q is declared twice", d)
		}
		seen[d] = true
	}
	return nil
}

// checkName checks a name: at most MaxNameLen bytes of UTF-8 without
// control characters, which would break the lines of tables and messages.
func checkName(what, s string) error {
	if len(s) > MaxNameLen {
		return fmt.Errorf("%s is longer than %d bytes (sdk.MaxNameLen)", what, MaxNameLen)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return fmt.Errorf("%s holds the control character %q", what, r)
		}
	}
	return nil
}

// checkText checks a free text: at most MaxTextLen bytes.
func checkText(what, s string) error {
	if len(s) > MaxTextLen {
		return fmt.Errorf("%s is longer than %d bytes (sdk.MaxTextLen)", what, MaxTextLen)
	}
	return nil
}

// Truncate cuts s to n bytes and marks the cut, for quoting a plugin's
// text in a message.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
