package gnmi

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"transportlab/emulator/internal/openconfig"
)

// Encodings the server speaks. JSON_IETF is RFC 7951; PROTO is scalar
// TypedValues, one update per leaf.
var Encodings = []gpb.Encoding{gpb.Encoding_JSON_IETF, gpb.Encoding_JSON, gpb.Encoding_PROTO}

func checkEncoding(e gpb.Encoding) error {
	for _, ok := range Encodings {
		if e == ok {
			return nil
		}
	}
	if _, known := gpb.Encoding_name[int32(e)]; known {
		return status.Errorf(codes.Unimplemented, "encoding %s is not supported: use JSON_IETF, JSON or PROTO", e)
	}
	return status.Errorf(codes.InvalidArgument, "unknown encoding %d", e)
}

// scalar is one leaf value in an encoding.
func scalar(v any, enc gpb.Encoding) *gpb.TypedValue {
	switch enc {
	case gpb.Encoding_JSON_IETF, gpb.Encoding_JSON:
		ietf := enc == gpb.Encoding_JSON_IETF
		data, _ := openconfig.JSON(nil, []openconfig.Leaf{{Value: v}}, ietf)
		if ietf {
			return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: data}}
		}
		return &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: data}}
	}
	switch x := v.(type) {
	case string:
		return &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: x}}
	case openconfig.Identity:
		return &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: string(x)}}
	case bool:
		return &gpb.TypedValue{Value: &gpb.TypedValue_BoolVal{BoolVal: x}}
	case uint8:
		return &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: uint64(x)}}
	case uint16:
		return &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: uint64(x)}}
	case uint32:
		return &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: uint64(x)}}
	case uint64:
		return &gpb.TypedValue{Value: &gpb.TypedValue_UintVal{UintVal: x}}
	}
	return &gpb.TypedValue{}
}

// leafUpdates is one update per leaf, paths below the prefix's first
// prefixLen elements.
func leafUpdates(leaves []openconfig.Leaf, prefixLen int, enc gpb.Encoding) []*gpb.Update {
	out := make([]*gpb.Update, len(leaves))
	for k, l := range leaves {
		out[k] = &gpb.Update{Path: relative(prefixLen, l.Path), Val: scalar(l.Value, enc)}
	}
	return out
}

// treeUpdates answers a Get of path: one update per node the path names
// (each entry of a list a wildcard or a missing key selects), its value
// the JSON tree of the leaves below it; PROTO has no trees, so it is one
// update per leaf.
func treeUpdates(path openconfig.Path, leaves []openconfig.Leaf, prefixLen int, enc gpb.Encoding) ([]*gpb.Update, error) {
	if enc == gpb.Encoding_PROTO {
		return leafUpdates(leaves, prefixLen, enc), nil
	}
	var nodes []openconfig.Path
	byNode := map[string][]openconfig.Leaf{}
	for _, l := range leaves {
		node := l.Path[:len(path)]
		key := node.String()
		if _, seen := byNode[key]; !seen {
			nodes = append(nodes, node)
		}
		byNode[key] = append(byNode[key], l)
	}
	out := make([]*gpb.Update, 0, len(nodes))
	for _, node := range nodes {
		data, err := openconfig.JSON(node, byNode[node.String()], enc == gpb.Encoding_JSON_IETF)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "encoding %s: %v", node, err)
		}
		val := &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: data}}
		if enc == gpb.Encoding_JSON_IETF {
			val = &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: data}}
		}
		out = append(out, &gpb.Update{Path: relative(prefixLen, node), Val: val})
	}
	return out, nil
}

// writes decodes the value of a Set's update at path into leaf writes:
// JSON and JSON_IETF trees, or a scalar for a leaf.
func writes(path openconfig.Path, v *gpb.TypedValue) ([]openconfig.Write, error) {
	var value any
	switch x := v.GetValue().(type) {
	case *gpb.TypedValue_JsonIetfVal:
		return decodeJSON(path, x.JsonIetfVal)
	case *gpb.TypedValue_JsonVal:
		return decodeJSON(path, x.JsonVal)
	case *gpb.TypedValue_StringVal:
		value = x.StringVal
	case *gpb.TypedValue_AsciiVal:
		value = x.AsciiVal
	case *gpb.TypedValue_BoolVal:
		value = x.BoolVal
	case *gpb.TypedValue_UintVal:
		value = json.Number(strconv.FormatUint(x.UintVal, 10))
	case *gpb.TypedValue_IntVal:
		value = json.Number(strconv.FormatInt(x.IntVal, 10))
	case nil:
		return nil, status.Errorf(codes.InvalidArgument, "%s: the update has no value", path)
	default:
		return nil, status.Errorf(codes.InvalidArgument, "%s: a %T is no value of this model", path, x)
	}
	return []openconfig.Write{{Path: path, Value: value}}, nil
}

// decodeJSON decodes a JSON value. Bytes that are not JSON, given for a
// leaf, are the string they spell: pygnmi sends a Python str that way, and
// devices take it.
func decodeJSON(path openconfig.Path, data []byte) ([]openconfig.Write, error) {
	if !json.Valid(data) && utf8.Valid(data) && openconfig.IsLeaf(path) {
		return []openconfig.Write{{Path: path, Value: string(data)}}, nil
	}
	w, err := openconfig.DecodeJSON(path, data)
	if err != nil {
		return nil, statusOf(err)
	}
	return w, nil
}

// statusOf turns an openconfig refusal into its gRPC status.
func statusOf(err error) error {
	if e, ok := err.(*openconfig.Error); ok {
		code := codes.InvalidArgument
		if e.Code == openconfig.NotFound {
			code = codes.NotFound
		}
		return status.Error(code, e.Message)
	}
	return err
}
