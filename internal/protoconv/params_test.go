package protoconv_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/sdk"
)

// ranged declares one parameter of each kind of range.
var ranged = []sdk.Param{
	{Name: "m", Type: sdk.Int, Default: int64(2), Min: sdk.Inclusive(2)},
	{Name: "lr", Type: sdk.Float, Default: 0.05, Min: sdk.Exclusive(0)},
	{Name: "p", Type: sdk.Float, Default: 0.5, Min: sdk.Exclusive(0), Max: sdk.Inclusive(1)},
	{Name: "k", Type: sdk.Int, Default: int64(4), Allowed: []any{1, int64(2), 4.0}},
	{Name: "mode", Type: sdk.String, Default: "fast", Allowed: []any{"fast", "exact"}},
	{Name: "big", Type: sdk.Int, Default: int64(0), Max: sdk.Exclusive(1 << 53)},
	{Name: "free", Type: sdk.Float, Default: 1.0},
}

// TestDescribeRangesRoundTrip: ranges and allowed values survive the wire
// unchanged (allowed values in their wire types), and a declaration the
// SDK would never send still converts, for Validate to judge.
func TestDescribeRangesRoundTrip(t *testing.T) {
	srv, err := wire.InProcess(sdk.Plugin{Name: "x", Params: ranged, New: func(sdk.Session, sdk.Replica) (sdk.Policy, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	r, err := srv.Describe() // what the plugin sends
	if err != nil {
		t.Fatal(err)
	}
	got := protoconv.FromDescribe(r)
	for i, p := range got.Params {
		want := ranged[i]
		want.Allowed = nil
		for _, a := range ranged[i].Allowed {
			c, _ := params.Coerce(want.Type, a)
			want.Allowed = append(want.Allowed, c)
		}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("param %d: got %#v, want %#v", i, p, want)
		}
	}
	if err := got.Validate(); err != nil {
		t.Errorf("round-tripped description invalid: %v", err)
	}
	r.Params[0].Type = "complex"
	if err := protoconv.FromDescribe(r).Validate(); err == nil || !strings.Contains(err.Error(), `unknown type "complex"`) {
		t.Errorf("a complex parameter: Validate = %v", err)
	}
}
