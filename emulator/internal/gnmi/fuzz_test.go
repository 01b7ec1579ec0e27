package gnmi

import (
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/proto"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/openconfig"
)

// FuzzPath: a path element in string form, and a gNMI Path message, never
// panic the conversion; what converts prints back to itself.
func FuzzPath(f *testing.F) {
	f.Add("interface[name=GigabitEthernet1]", []byte(nil))
	f.Add(`address[ip=10.0.0.1][x=a\]b]`, []byte(nil))
	f.Add("a[b=", []byte{0x2a, 0x07, 0x0a, 0x05, 0x6e, 0x61, 0x6d, 0x65, 0x31})
	seed, _ := proto.Marshal(&gpb.Path{Origin: "openconfig", Elem: []*gpb.PathElem{{Name: "interfaces"},
		{Name: "interface", Key: map[string]string{"name": "*"}}}})
	f.Add("system", seed)
	f.Fuzz(func(t *testing.T, text string, message []byte) {
		if e, err := parseElem(text); err == nil {
			printed := strings.TrimPrefix(openconfig.Path{e}.String(), "/")
			again, err := parseElem(printed)
			if err != nil || (openconfig.Path{again}).String() != "/"+printed {
				t.Fatalf("%q printed as %q, read back as %v (%v)", text, printed, again, err)
			}
		}
		var p gpb.Path
		if proto.Unmarshal(message, &p) != nil {
			return
		}
		full, err := fullPath(nil, &p)
		if err != nil {
			return
		}
		back, err := fullPath(nil, &gpb.Path{Elem: protoElems(full)})
		if err != nil || back.String() != full.String() {
			t.Fatalf("%v converted to %s, back to %s (%v)", &p, full, back, err)
		}
	})
}

// FuzzSet: a Set of one operation, any path and value, never panics and
// never leaves the store half changed: refused, the configuration and the
// datastore are as they were.
func FuzzSet(f *testing.F) {
	f.Add("/interfaces/interface[name=GigabitEthernet2]/config", `{"description":"x","enabled":false}`, uint8(2))
	f.Add("/interfaces/interface[name=Loopback9]", `{"config":{"description":"new"},"subinterfaces":{"subinterface":[{"index":0,"ipv4":{"addresses":{"address":[{"ip":"10.0.0.9","config":{"ip":"10.0.0.9","prefix-length":32}}]}}}]}}`, uint8(1))
	f.Add("/interfaces/interface[name=GigabitEthernet3]", "", uint8(0))
	f.Add("/system/config/hostname", `"edge"`, uint8(2))
	f.Add("/system", `{"config":{"hostname":"a b"}}`, uint8(1))
	f.Fuzz(func(t *testing.T, pathText, value string, op uint8) {
		if !strings.HasPrefix(pathText, "/") {
			return
		}
		p := &gpb.Path{}
		if pathText != "/" {
			for _, part := range splitPath(pathText) {
				e, err := parseElem(part)
				if err != nil {
					return
				}
				p.Elem = append(p.Elem, &gpb.PathElem{Name: e.Name, Key: e.Keys})
			}
		}
		update := &gpb.Update{Path: p, Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(value)}}}
		req := &gpb.SetRequest{}
		switch op % 3 {
		case 0:
			req.Delete = []*gpb.Path{p}
		case 1:
			req.Replace = []*gpb.Update{update}
		case 2:
			req.Update = []*gpb.Update{update}
		}
		store, err := configdb.Seeded("cisco_iosxe", "lab-r1")
		if err != nil {
			t.Fatal(err)
		}
		d := newDevice("cisco_iosxe", store)
		before, _ := store.Lines()
		commit, _ := store.Datastore().Running()
		change, _, err := decodeSet(req)
		if err == nil {
			_, err = d.set(change)
		}
		if err == nil {
			return
		}
		after, _ := store.Lines()
		again, _ := store.Datastore().Running()
		if strings.Join(after, "\n") != strings.Join(before, "\n") || again.Seq != commit.Seq {
			t.Fatalf("refused (%v), yet changed:\n%s", err, strings.Join(after, "\n"))
		}
	})
}
