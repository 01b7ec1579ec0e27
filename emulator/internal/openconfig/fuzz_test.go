package openconfig

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeJSON: any bytes never panic the decoder; what decodes is
// leaves at or below the prefix (at it: a scalar for a leaf path), of the
// three JSON scalar kinds.
func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"openconfig-interfaces:interface":[{"name":"Loopback5","config":{"description":"five","enabled":false}}]}`))
	f.Add([]byte(`{"interface":[{"name":1}]}`))
	f.Add([]byte(`"scalar"`))
	f.Add([]byte(`[{"name":"x"}]`))
	prefix := Path{E("interfaces")}
	f.Fuzz(func(t *testing.T, data []byte) {
		writes, err := DecodeJSON(prefix, data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		for _, w := range writes {
			if !prefix.Matches(w.Path) {
				t.Fatalf("write %s is not at or below %s", w.Path, prefix)
			}
			switch w.Value.(type) {
			case string, bool, json.Number:
			default:
				t.Fatalf("value %T", w.Value)
			}
		}
	})
}
