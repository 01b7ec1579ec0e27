package configdb

import (
	"errors"
	"strings"
	"testing"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/xmltree"
)

func newStore(t *testing.T) (*Store, *datastore.Store) {
	t.Helper()
	ds := datastore.New([]*xmltree.Node{xmltree.Elem(NativeNS, "native", xmltree.Leaf(NativeNS, "hostname", "lab-r1"))})
	return New(ds, "lab-r1"), ds
}

func runningXML(t *testing.T, ds *datastore.Store) string {
	t.Helper()
	nodes, err := ds.Get(datastore.Running, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(n.String())
	}
	return b.String()
}

func mustApply(t *testing.T, s *Store, block, line string) {
	t.Helper()
	if err := s.Apply(block, line); err != nil {
		t.Fatalf("%q / %q: %v", block, line, err)
	}
}

func TestCLILinesReachTheDatastore(t *testing.T) {
	s, ds := newStore(t)
	mustApply(t, s, "", "hostname core-9")
	mustApply(t, s, "", "interface Gi2")
	mustApply(t, s, "interface Gi2", "description uplink to core")
	mustApply(t, s, "interface Gi2", "ip address 10.0.0.1 255.255.255.0")
	mustApply(t, s, "interface Gi2", "shutdown")
	mustApply(t, s, "interface Gi2", "negotiation auto")
	want := `<native xmlns="` + NativeNS + `"><hostname>core-9</hostname><interface><GigabitEthernet><name>2</name>` +
		`<description>uplink to core</description><ip><address><primary><address>10.0.0.1</address><mask>255.255.255.0</mask>` +
		`</primary></address></ip><shutdown/></GigabitEthernet></interface></native>`
	if got := runningXML(t, ds); got != want {
		t.Fatalf("running:\n%s\nwant:\n%s", got, want)
	}
	candidate, _ := ds.Get(datastore.Candidate, nil)
	if candidate[0].String() != want {
		t.Errorf("a clean candidate must follow running: %s", candidate[0])
	}
	if s.Hostname() != "core-9" {
		t.Errorf("hostname %q", s.Hostname())
	}
	lines, err := s.Lines()
	if err != nil {
		t.Fatal(err)
	}
	wantLines := "interface GigabitEthernet2\n description uplink to core\n ip address 10.0.0.1 255.255.255.0\n shutdown\n negotiation auto\n!"
	if got := strings.Join(lines, "\n"); got != wantLines {
		t.Errorf("lines:\n%s\nwant:\n%s", got, wantLines)
	}

	mustApply(t, s, "interface GigabitEthernet2", "no description")
	mustApply(t, s, "interface GigabitEthernet2", "no shutdown")
	mustApply(t, s, "interface GigabitEthernet2", "no ip address")
	mustApply(t, s, "interface GigabitEthernet2", "no negotiation auto")
	lines, _ = s.Lines()
	if got := strings.Join(lines, "\n"); got != "interface GigabitEthernet2\n!" {
		t.Errorf("after no ...: %q", got)
	}
	mustApply(t, s, "", "no interface GigabitEthernet2")
	if got := runningXML(t, ds); strings.Contains(got, "GigabitEthernet") {
		t.Errorf("no interface left %s", got)
	}
}

func TestNetconfEditsShowAsCLILines(t *testing.T) {
	s, ds := newStore(t)
	root, err := xmltree.Parse([]byte(`<config><native xmlns="` + NativeNS + `"><hostname>nc-1</hostname><interface>` +
		`<Loopback><name>7</name><description>from netconf</description></Loopback></interface></native></config>`))
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Edit(1, datastore.Candidate, "merge", root.Children); err != nil {
		t.Fatal(err)
	}
	if lines, _ := s.Lines(); len(lines) != 0 || s.Hostname() != "lab-r1" {
		t.Fatalf("uncommitted candidate visible: %q %s", lines, s.Hostname())
	}
	if err := ds.Commit(1); err != nil {
		t.Fatal(err)
	}
	lines, _ := s.Lines()
	if got := strings.Join(lines, "\n"); got != "interface Loopback7\n description from netconf\n!" || s.Hostname() != "nc-1" {
		t.Errorf("after commit: %q, hostname %s", got, s.Hostname())
	}
}

func TestUnmappedLinesAndLocks(t *testing.T) {
	s, ds := newStore(t)
	mustApply(t, s, "", "ntp server 198.18.0.1")
	mustApply(t, s, "", "router ospf 1")
	mustApply(t, s, "router ospf 1", "router-id 1.1.1.1")
	mustApply(t, s, "", "interface range Gi1 - 3")
	lines, _ := s.Lines()
	want := "ntp server 198.18.0.1\nrouter ospf 1\n router-id 1.1.1.1\n!\ninterface range Gi1 - 3"
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	if err := ds.Lock(3, datastore.Running); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply("", "hostname locked"); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("edit under a NETCONF lock: %v", err)
	}
	ds.ReleaseSession(3)
	mustApply(t, s, "", "hostname unlocked")
}

func TestParseInterface(t *testing.T) {
	for text, want := range map[string]iface{
		"GigabitEthernet2": {"GigabitEthernet", "2"}, "gi 0/0/1": {"GigabitEthernet", "0/0/1"},
		"Lo0": {"Loopback", "0"}, "Et7": {"Ethernet", "7"}, "Port-channel10": {"Port-channel", "10"},
		"T1": {"T", "1"}, "Widget3": {"Widget", "3"},
	} {
		if got, ok := parseInterface(text); !ok || got != want {
			t.Errorf("%q: %+v %v", text, got, ok)
		}
	}
	for _, text := range []string{"range Gi1 - 3", "2", ""} {
		if _, ok := parseInterface(text); ok {
			t.Errorf("%q parsed", text)
		}
	}
}

func TestApplyLinesIsOneCommitOrNone(t *testing.T) {
	s, err := Seeded("cisco_iosxe", "lab-r1")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := s.Lines()
	first, _ := s.Datastore().Running()
	// The NETCONF lock refuses the batch: nothing of it is applied.
	if err := s.Datastore().Lock(9, "running"); err != nil {
		t.Fatal(err)
	}
	batch := []Line{{Text: "interface Loopback7"}, {Block: "interface Loopback7", Text: "description seven"},
		{Block: "interface GigabitEthernet2", Text: "shutdown"}, {Text: "no interface GigabitEthernet3"}}
	if err := s.ApplyLines(batch); !errors.Is(err, ErrLocked) {
		t.Fatalf("under a NETCONF lock: %v", err)
	}
	if after, _ := s.Lines(); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatalf("a refused batch changed the configuration:\n%s", strings.Join(after, "\n"))
	}
	if err := s.Datastore().Unlock(9, "running"); err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyLines(batch); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Lines()
	config := strings.Join(after, "\n")
	for _, want := range []string{"interface Loopback7\n description seven", "Lab LAN A\n ip address 198.18.10.1 255.255.255.0\n shutdown\n negotiation auto"} {
		if !strings.Contains(config, want) {
			t.Errorf("lacks %q:\n%s", want, config)
		}
	}
	if strings.Contains(config, "GigabitEthernet3") {
		t.Errorf("batch not applied:\n%s", config)
	}
	if last, _ := s.Datastore().Running(); last.Seq != first.Seq+1 {
		t.Errorf("%d commits for one batch", last.Seq-first.Seq)
	}
	// A global line without a tree mapping cannot be batched.
	if err := s.ApplyLines([]Line{{Text: "ip domain name lab"}}); err == nil {
		t.Error("an unmapped global line was batched")
	}
}
