package protoconv

import (
	"fmt"

	"github.com/regretbench/regretbench/internal/wire/pb"
)

// ToValue converts a parameter value (float64, int64, int, bool or string)
// to its wire form.
func ToValue(v any) (*pb.Value, error) {
	switch x := v.(type) {
	case float64:
		return &pb.Value{Kind: &pb.Value_Float{Float: x}}, nil
	case int64:
		return &pb.Value{Kind: &pb.Value_Int{Int: x}}, nil
	case int:
		return &pb.Value{Kind: &pb.Value_Int{Int: int64(x)}}, nil
	case bool:
		return &pb.Value{Kind: &pb.Value_Bool{Bool: x}}, nil
	case string:
		return &pb.Value{Kind: &pb.Value_String_{String_: x}}, nil
	}
	return nil, fmt.Errorf("unsupported parameter value %T %v", v, v)
}

// FromValue converts a wire value to float64, int64, bool or string; an
// empty value is nil.
func FromValue(v *pb.Value) any {
	switch x := v.GetKind().(type) {
	case *pb.Value_Float:
		return x.Float
	case *pb.Value_Int:
		return x.Int
	case *pb.Value_Bool:
		return x.Bool
	case *pb.Value_String_:
		return x.String_
	}
	return nil
}
