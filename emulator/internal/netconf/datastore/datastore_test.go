package datastore

import (
	"strings"
	"testing"

	"transportlab/emulator/internal/netconf/xmltree"
)

func parse(t *testing.T, s string) []*xmltree.Node {
	t.Helper()
	n, err := xmltree.Parse([]byte("<config>" + s + "</config>"))
	if err != nil {
		t.Fatal(err)
	}
	return n.Children
}

func render(nodes []*xmltree.Node) string {
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(n.String())
	}
	return b.String()
}

const initial = `<native xmlns="urn:n"><hostname>r1</hostname><interface><name>Lo0</name><description>a</description></interface></native>`

func TestMergeReplaceDelete(t *testing.T) {
	s := New(parse(t, initial))
	steps := []struct{ op, config, want string }{
		{"merge", `<native xmlns="urn:n"><hostname>r2</hostname><interface><name>Lo1</name></interface></native>`,
			`<native xmlns="urn:n"><hostname>r2</hostname><interface><name>Lo0</name><description>a</description></interface><interface><name>Lo1</name></interface></native>`},
		{"merge", `<native xmlns="urn:n"><interface><name>Lo0</name><description>b</description></interface></native>`,
			`<native xmlns="urn:n"><hostname>r2</hostname><interface><name>Lo0</name><description>b</description></interface><interface><name>Lo1</name></interface></native>`},
		{"merge", `<native xmlns="urn:n" xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0"><interface nc:operation="delete"><name>Lo1</name></interface></native>`,
			`<native xmlns="urn:n"><hostname>r2</hostname><interface><name>Lo0</name><description>b</description></interface></native>`},
		{"replace", `<native xmlns="urn:n"><hostname>r3</hostname></native>`, `<native xmlns="urn:n"><hostname>r3</hostname></native>`},
	}
	for _, st := range steps {
		if err := s.Edit(1, Candidate, st.op, parse(t, st.config)); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(Candidate, nil)
		if render(got) != st.want {
			t.Fatalf("%s %s:\n got %s\nwant %s", st.op, st.config, render(got), st.want)
		}
	}
	if run, _ := s.Get(Running, nil); render(run) != initial {
		t.Fatalf("running changed before commit: %s", render(run))
	}
	s.Commit(1)
	if run, _ := s.Get(Running, nil); !strings.Contains(render(run), "r3") {
		t.Fatalf("commit did not apply: %s", render(run))
	}
}

func TestDeleteMissingAndCreateExisting(t *testing.T) {
	s := New(parse(t, initial))
	if err := s.Edit(1, Running, "merge", parse(t, `<native xmlns="urn:n"><x operation="delete"/></native>`)); err == nil || err.Tag != "data-missing" {
		t.Fatalf("want data-missing, got %v", err)
	}
	if err := s.Edit(1, Running, "merge", parse(t, `<native xmlns="urn:n" operation="create"/>`)); err == nil || err.Tag != "data-exists" {
		t.Fatalf("want data-exists, got %v", err)
	}
	if err := s.Edit(1, Running, "merge", parse(t, `<native xmlns="urn:n" operation="bogus"/>`)); err == nil || err.Tag != "bad-attribute" {
		t.Fatalf("want bad-attribute, got %v", err)
	}
	if got, _ := s.Get(Running, nil); render(got) != initial {
		t.Fatalf("failed edit changed the datastore: %s", render(got))
	}
}

func TestDiscard(t *testing.T) {
	s := New(parse(t, initial))
	s.Edit(1, Candidate, "replace", nil)
	s.Discard(1)
	if got, _ := s.Get(Candidate, nil); render(got) != initial {
		t.Fatalf("discard: %s", render(got))
	}
}

func TestLocks(t *testing.T) {
	s := New(parse(t, initial))
	if err := s.Lock(1, Running); err != nil {
		t.Fatal(err)
	}
	if err := s.Lock(2, Running); err == nil || err.Tag != "lock-denied" {
		t.Fatalf("second lock: %v", err)
	}
	if err := s.Edit(2, Running, "merge", parse(t, `<a/>`)); err == nil || err.Tag != "in-use" {
		t.Fatalf("edit of locked store: %v", err)
	}
	if err := s.Unlock(2, Running); err == nil {
		t.Fatal("unlock by another session succeeded")
	}
	s.ReleaseSession(1)
	if err := s.Lock(2, Running); err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	s.Edit(3, Candidate, "merge", parse(t, `<a/>`))
	if err := s.Lock(3, Candidate); err == nil {
		t.Fatal("locked a dirty candidate")
	}
	if err := s.Lock(1, "startup"); err == nil {
		t.Fatal("locked an unknown datastore")
	}
}

func TestFilter(t *testing.T) {
	data := parse(t, `<native xmlns="urn:n"><hostname>r1</hostname><interface><name>Lo0</name><mtu>1500</mtu></interface><interface><name>Lo1</name><mtu>9000</mtu></interface></native><other xmlns="urn:o"/>`)
	cases := map[string]string{
		`<native xmlns="urn:n"/>`:                                        render(data[:1]),
		`<native><hostname/></native>`:                                   `<native xmlns="urn:n"><hostname>r1</hostname></native>`,
		`<native><interface><name>Lo1</name></interface></native>`:       `<native xmlns="urn:n"><interface><name>Lo1</name><mtu>9000</mtu></interface></native>`,
		`<native><interface><name>Lo1</name><mtu/></interface></native>`: `<native xmlns="urn:n"><interface><name>Lo1</name><mtu>9000</mtu></interface></native>`,
		`<native xmlns="urn:x"/>`:                                        ``,
		`<native><interface><name>Lo9</name></interface></native>`:       ``,
	}
	for f, want := range cases {
		if got := render(Filter(data, parse(t, f))); got != want {
			t.Errorf("filter %s:\n got %s\nwant %s", f, got, want)
		}
	}
}

func TestEditRunningHonoursLocksAndCandidate(t *testing.T) {
	s := New(parse(t, initial))
	if err := s.EditRunning(parse(t, `<native xmlns="urn:n"><hostname>cli</hostname></native>`)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Running, Candidate} {
		if got, _ := s.Get(name, nil); !strings.Contains(render(got), "<hostname>cli</hostname>") {
			t.Errorf("%s after a CLI edit with a clean candidate: %s", name, render(got))
		}
	}
	if err := s.Edit(1, Candidate, "merge", parse(t, `<native xmlns="urn:n"><hostname>pending</hostname></native>`)); err != nil {
		t.Fatal(err)
	}
	if err := s.EditRunning(parse(t, `<native xmlns="urn:n"><hostname>cli2</hostname></native>`)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(Candidate, nil); !strings.Contains(render(got), "<hostname>pending</hostname>") {
		t.Errorf("uncommitted candidate changes were overwritten: %s", render(got))
	}
	if err := s.Lock(2, Running); err != nil {
		t.Fatal(err)
	}
	if err := s.EditRunning(parse(t, `<native xmlns="urn:n"><hostname>cli3</hostname></native>`)); err == nil || err.Tag != "in-use" {
		t.Errorf("edit of a locked running: %v", err)
	}
}
