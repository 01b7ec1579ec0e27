package restconf

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestYANGPatchJSONAppliesEveryEdit(t *testing.T) {
	srv, store := newServer(t)
	patch := `{"ietf-yang-patch:yang-patch":{"patch-id":"p1","edit":[
		{"edit-id":"e1","operation":"merge","target":"/interface/Gi=1/description","value":{"Native:description":"one"}},
		{"edit-id":"e2","operation":"create","target":"/interface/Gi=5","value":{"Native:Gi":[{"name":"5","description":"five"}]}},
		{"edit-id":"e3","operation":"remove","target":"/interface/Gi=9"},
		{"edit-id":"e4","operation":"delete","target":"/interface/Gi=2"}]}}`
	code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaYANGPatchJSON, "", patch)
	if code != 200 || body != `{"ietf-yang-patch:yang-patch-status":{"patch-id":"p1","ok":[null]}}` {
		t.Fatalf("%d %s", code, body)
	}
	got := running(t, store)
	for _, want := range []string{"<name>1</name><description>one</description>", "<name>5</name><description>five</description>"} {
		if !strings.Contains(got, want) {
			t.Errorf("running lacks %s: %s", want, got)
		}
	}
	if strings.Contains(got, "<name>2</name>") {
		t.Errorf("Gi2 was not deleted: %s", got)
	}
}

func TestYANGPatchIsAllOrNothing(t *testing.T) {
	srv, store := newServer(t)
	before := running(t, store)
	patch := `{"ietf-yang-patch:yang-patch":{"patch-id":"p2","edit":[
		{"edit-id":"first","operation":"merge","target":"/interface/Gi=1/description","value":{"Native:description":"changed"}},
		{"edit-id":"second","operation":"create","target":"/interface/Gi=2","value":{"Native:Gi":[{"name":"2"}]}}]}}`
	code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaYANGPatchJSON, "", patch)
	if code != 409 {
		t.Fatalf("create of an existing entry: %d %s", code, body)
	}
	var status struct {
		Status struct {
			PatchID    string `json:"patch-id"`
			EditStatus struct {
				Edit []struct {
					EditID string `json:"edit-id"`
					Errors struct {
						Error []map[string]string `json:"error"`
					} `json:"errors"`
				} `json:"edit"`
			} `json:"edit-status"`
		} `json:"ietf-yang-patch:yang-patch-status"`
	}
	if err := json.Unmarshal([]byte(body), &status); err != nil {
		t.Fatal(err)
	}
	edits := status.Status.EditStatus.Edit
	if status.Status.PatchID != "p2" || len(edits) != 1 || edits[0].EditID != "second" || edits[0].Errors.Error[0]["error-tag"] != "data-exists" {
		t.Fatalf("yang-patch-status: %s", body)
	}
	if after := running(t, store); after != before {
		t.Fatalf("a failed patch changed running:\n%s\n%s", before, after)
	}
	missing := `{"ietf-yang-patch:yang-patch":{"patch-id":"p3","edit":[{"edit-id":"d","operation":"delete","target":"/interface/Gi=9"}]}}`
	if code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaYANGPatchJSON, "", missing); code != 409 || !strings.Contains(body, `"data-missing"`) {
		t.Fatalf("delete of a missing entry: %d %s", code, body)
	}
}

func TestYANGPatchXML(t *testing.T) {
	srv, store := newServer(t)
	patch := `<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>x1</patch-id>` +
		`<edit><edit-id>1</edit-id><operation>replace</operation><target>/Native:native/hostname</target>` +
		`<value><hostname xmlns="urn:native">r9</hostname></value></edit></yang-patch>`
	code, body := do(t, "PATCH", srv.URL+"/restconf/data", MediaYANGPatchXML, "", patch)
	want := `<yang-patch-status xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>x1</patch-id><ok/></yang-patch-status>`
	if code != 200 || body != want {
		t.Fatalf("%d %s", code, body)
	}
	if got := running(t, store); !strings.Contains(got, "<hostname>r9</hostname>") {
		t.Fatalf("hostname not replaced: %s", got)
	}
	store.Lock(4, "running")
	code, body = do(t, "PATCH", srv.URL+"/restconf/data", MediaYANGPatchXML, MediaXML, patch)
	if code != 409 || !strings.Contains(body, "<global-errors><errors><error><error-type>protocol</error-type><error-tag>in-use</error-tag>") {
		t.Fatalf("patch under a NETCONF lock: %d %s", code, body)
	}
}

func TestYANGPatchRefusals(t *testing.T) {
	srv, _ := newServer(t)
	for _, tc := range []struct{ name, body string }{
		{"no patch-id", `{"ietf-yang-patch:yang-patch":{"edit":[]}}`},
		{"insert", `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"insert","target":"/hostname","point":"/x","where":"before","value":{"Native:hostname":"a"}}]}}`},
		{"merge without value", `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"merge","target":"/hostname"}]}}`},
		{"delete with value", `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"delete","target":"/hostname","value":{"Native:hostname":"a"}}]}}`},
		{"duplicate edit-id", `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"remove","target":"/a"},{"edit-id":"e","operation":"remove","target":"/b"}]}}`},
		{"unknown member", `{"ietf-yang-patch:yang-patch":{"patch-id":"p","bogus":1}}`},
		{"not a patch", `{"Native:native":{}}`},
	} {
		if code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaYANGPatchJSON, "", tc.body); code != 400 || !strings.Contains(body, "malformed-message") {
			t.Errorf("%s: %d %s", tc.name, code, body)
		}
	}
	wrongValue := `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"merge","target":"/hostname","value":{"Native:description":"a"}}]}}`
	if code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaYANGPatchJSON, "", wrongValue); code != 400 || !strings.Contains(body, `"edit-id":"e"`) {
		t.Errorf("a value that is not the target: %d %s", code, body)
	}
	relative := `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"remove","target":"hostname"}]}}`
	if code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaYANGPatchJSON, "", relative); code != 400 {
		t.Errorf("a target without '/': %d %s", code, body)
	}
}

// FuzzYANGPatch: no YANG Patch body, JSON or XML, may panic the parsers,
// and one they accept has an id and edits that name their operation.
func FuzzYANGPatch(f *testing.F) {
	for _, seed := range []string{
		`{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"merge","target":"/a","value":{"Native:a":"b"}}]}}`,
		`{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"e","operation":"delete","target":"/x=1"}]}}`,
		`<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>p</patch-id><edit><edit-id>1</edit-id><operation>remove</operation><target>/a</target></edit></yang-patch>`,
		`<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><edit><value/></edit></yang-patch>`,
		`{"ietf-yang-patch:yang-patch":null}`, `[`, `<`,
	} {
		f.Add([]byte(seed))
	}
	h := &Handler{modules: modules}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, parse := range []func([]byte) (*yangPatch, error){
			func(b []byte) (*yangPatch, error) { return parseYANGPatchJSON(b, modules) }, parseYANGPatchXML,
		} {
			p, err := parse(in)
			if err != nil {
				continue
			}
			if p.id == "" {
				t.Fatalf("%q accepted without a patch-id", in)
			}
			for _, e := range p.edits {
				if e.id == "" || e.op == "" || e.target == "" {
					t.Fatalf("%q accepted an incomplete edit %+v", in, e)
				}
			}
			changes, failed := h.changes(p, []step{{space: ns, name: "native"}})
			if failed == nil {
				for _, c := range changes {
					_, _ = c.tree()
				}
			}
		}
	})
}
