package restconf

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

const ns = "urn:native"

var modules = map[string]string{"Native": ns}

func newServer(t *testing.T) (*httptest.Server, *datastore.Store) {
	t.Helper()
	initial, err := xmltree.Parse([]byte(`<native xmlns="urn:native"><hostname>r1</hostname><interface><Gi><name>1</name><description>up</description></Gi><Gi><name>2</name></Gi></interface></native>`))
	if err != nil {
		t.Fatal(err)
	}
	store := datastore.New([]*xmltree.Node{initial})
	return newServerWith(t, store), store
}

func newServerWith(t *testing.T, store *datastore.Store) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(store, modules))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, method, url, contentType, accept, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestGetJSONAndXML(t *testing.T) {
	srv, _ := newServer(t)
	code, body := do(t, "GET", srv.URL+"/restconf/data/Native:native", "", "", "")
	want := `{"Native:native":{"hostname":"r1","interface":{"Gi":[{"name":"1","description":"up"},{"name":"2"}]}}}`
	if code != 200 || body != want {
		t.Fatalf("%d %s", code, body)
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	code, body = do(t, "GET", srv.URL+"/restconf/data/Native:native/interface/Gi=2", "", MediaXML, "")
	if code != 200 || body != `<Gi xmlns="urn:native"><name>2</name></Gi>` {
		t.Fatalf("%d %s", code, body)
	}
	if code, _ := do(t, "GET", srv.URL+"/restconf/data/Native:native/interface/Gi=9", "", "", ""); code != 404 {
		t.Fatalf("missing entry: %d", code)
	}
	if code, _ := do(t, "GET", srv.URL+"/restconf/data/Bogus:x", "", "", ""); code != 400 {
		t.Fatalf("unknown module: %d", code)
	}
	if code, body := do(t, "POST", srv.URL+"/restconf/data/Native:native", "", "", ""); code != 405 || !strings.Contains(body, `"error-tag":"operation-not-supported"`) {
		t.Fatalf("POST: %d %s", code, body)
	}
	if code, body := do(t, "GET", srv.URL+"/restconf/data/Native:native", "", "text/html", ""); code != 406 || !strings.Contains(body, "ietf-restconf:errors") {
		t.Fatalf("Accept text/html: %d %s", code, body)
	}
	if code, body := do(t, "GET", srv.URL+"/restconf/data/Native:native/interface/Gi=9", "", MediaXML, ""); code != 404 ||
		!strings.HasPrefix(body, `<errors xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf"><error><error-type>protocol</error-type><error-tag>invalid-value</error-tag>`) {
		t.Fatalf("XML error document: %d %s", code, body)
	}
	if code, body := do(t, "GET", srv.URL+"/restconf/data", "", "", ""); code != 200 || !strings.Contains(body, `"Native:native"`) {
		t.Fatalf("datastore root: %d %s", code, body)
	}
}

func TestPatchJSONAndXML(t *testing.T) {
	srv, store := newServer(t)
	code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaJSON, "",
		`{"Native:native":{"hostname":"r2","interface":{"Gi":[{"name":"3","description":"new"}]}}}`)
	if code != 204 {
		t.Fatalf("PATCH JSON: %d %s", code, body)
	}
	code, body = do(t, "PATCH", srv.URL+"/restconf/data/Native:native/interface/Gi=1", MediaXML, "",
		`<Gi xmlns="urn:native"><name>1</name><description>changed</description></Gi>`)
	if code != 204 {
		t.Fatalf("PATCH XML: %d %s", code, body)
	}
	nodes, _ := store.Get(datastore.Running, nil)
	got := nodes[0].String()
	for _, want := range []string{"<hostname>r2</hostname>", "<name>3</name><description>new</description>", "<name>1</name><description>changed</description>", "<name>2</name>"} {
		if !strings.Contains(got, want) {
			t.Errorf("running lacks %s: %s", want, got)
		}
	}
	for _, tc := range []struct {
		ct, path, body string
		code           int
	}{
		{"text/plain", "", "x", 415},
		{MediaJSON, "", "{", 400},
		{MediaJSON, "", `{"hostname":"x"}`, 400},
		{MediaXML, "/Native:native/interface/Gi=1", `<Gi xmlns="urn:native"><name>2</name></Gi>`, 400},
	} {
		if code, body := do(t, "PATCH", srv.URL+"/restconf/data"+tc.path, tc.ct, "", tc.body); code != tc.code {
			t.Errorf("%s %s: %d %s", tc.ct, tc.body, code, body)
		}
	}
	store.Lock(7, datastore.Running)
	if code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native", MediaJSON, "", `{"Native:native":{"hostname":"r3"}}`); code != 409 || !strings.Contains(body, "in-use") {
		t.Fatalf("PATCH of a NETCONF-locked datastore: %d %s", code, body)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	doc := `{"Native:native":{"hostname":"r1","flag":[null],"interface":{"Gi":[{"name":"1","mtu":"1500"}]}}}`
	n, err := decodeJSON([]byte(doc), modules)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(encodeJSON(n, modules)); got != doc {
		t.Fatalf("round trip:\n got %s\nwant %s", got, doc)
	}
}

// FuzzDecodeJSON: no request body may panic the JSON decoder, and whatever
// it accepts must encode back to valid JSON.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{`{"Native:native":{"a":"b"}}`, `{"Native:x":[{"name":"1"},{"name":"2"}]}`,
		`{"Native:x":[null]}`, `{"x":1}`, `[`, `{"Native:x":{"Bogus:y":1}}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		n, err := decodeJSON(in, modules)
		if err != nil {
			return
		}
		if out := encodeJSON(n, modules); !json.Valid(out) {
			t.Fatalf("%q re-encoded as invalid JSON %q", in, out)
		}
	})
}
