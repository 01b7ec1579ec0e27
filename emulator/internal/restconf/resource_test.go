package restconf

import (
	"net/http"
	"strings"
	"testing"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

func running(t *testing.T, store *datastore.Store) string {
	t.Helper()
	nodes, err := store.Get(datastore.Running, nil)
	if err != nil {
		t.Fatal(err)
	}
	return nodes[0].String()
}

func TestPutCreatesThenReplaces(t *testing.T) {
	srv, store := newServer(t)
	url := srv.URL + "/restconf/data/Native:native/interface/Gi=7"
	if code, body := do(t, "PUT", url, MediaJSON, "", `{"Native:Gi":[{"name":"7","description":"new","mtu":"9000"}]}`); code != 201 {
		t.Fatalf("PUT of a new entry: %d %s", code, body)
	}
	if code, body := do(t, "PUT", url, MediaXML, "", `<Gi xmlns="urn:native"><name>7</name><description>again</description></Gi>`); code != 204 {
		t.Fatalf("PUT of an existing entry: %d %s", code, body)
	}
	got := running(t, store)
	if !strings.Contains(got, "<Gi><name>7</name><description>again</description></Gi>") {
		t.Fatalf("PUT must replace the whole entry (mtu gone): %s", got)
	}
	if code, body := do(t, "PUT", url, MediaJSON, "", `{"Native:Gi":[{"name":"8"}]}`); code != 400 {
		t.Fatalf("PUT whose key differs from the path: %d %s", code, body)
	}
	if code, _ := do(t, "PUT", srv.URL+"/restconf/data", MediaJSON, "", `{"Native:native":{}}`); code != 405 {
		t.Fatalf("PUT of the datastore: %d", code)
	}
}

func TestDeleteAndMissingTargets(t *testing.T) {
	srv, store := newServer(t)
	if code, body := do(t, "DELETE", srv.URL+"/restconf/data/Native:native/interface/Gi=1/description", "", "", ""); code != 204 {
		t.Fatalf("DELETE of a leaf: %d %s", code, body)
	}
	if got := running(t, store); strings.Contains(got, "<description>up</description>") {
		t.Fatalf("the description is still there: %s", got)
	}
	code, body := do(t, "DELETE", srv.URL+"/restconf/data/Native:native/interface/Gi=1/description", "", "", "")
	if code != 404 || !strings.Contains(body, `"error-tag":"data-missing"`) {
		t.Fatalf("DELETE of a missing leaf: %d %s", code, body)
	}
	if code, body := do(t, "DELETE", srv.URL+"/restconf/data/Native:native/interface/Gi=2", "", "", ""); code != 204 {
		t.Fatalf("DELETE of an entry: %d %s", code, body)
	}
	if got := running(t, store); strings.Contains(got, "<name>2</name>") {
		t.Fatalf("the entry is still there: %s", got)
	}
	if code, body := do(t, "PATCH", srv.URL+"/restconf/data/Native:native/interface/Gi=2", MediaJSON, "", `{"Native:Gi":[{"name":"2","description":"x"}]}`); code != 404 {
		t.Fatalf("PATCH of a missing resource must not create it: %d %s", code, body)
	}
	store.Lock(3, datastore.Running)
	if code, body := do(t, "DELETE", srv.URL+"/restconf/data/Native:native/hostname", "", "", ""); code != 409 || !strings.Contains(body, "in-use") {
		t.Fatalf("DELETE under a NETCONF lock: %d %s", code, body)
	}
}

func TestEscapedKeysAndOptions(t *testing.T) {
	initial, _ := xmltree.Parse([]byte(`<native xmlns="urn:native"><interface><Gi><name>0/1</name><description>slash</description></Gi></interface></native>`))
	store := datastore.New([]*xmltree.Node{initial})
	srv := newServerWith(t, store)
	if code, body := do(t, "GET", srv.URL+"/restconf/data/Native:native/interface/Gi=0%2F1/description", "", "", ""); code != 200 || body != `{"Native:description":"slash"}` {
		t.Fatalf("a key holding '/': %d %s", code, body)
	}
	req, _ := http.NewRequest("OPTIONS", srv.URL+"/restconf/data/Native:native", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Allow") != allowResource || !strings.Contains(resp.Header.Get("Accept-Patch"), MediaYANGPatchJSON) {
		t.Fatalf("OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
	if code, body := do(t, "GET", srv.URL+"/restconf", "", "", ""); code != 200 || !strings.Contains(body, `"ietf-restconf:restconf"`) {
		t.Fatalf("root resource: %d %s", code, body)
	}
}
