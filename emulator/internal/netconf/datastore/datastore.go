// Package datastore holds the NETCONF configuration datastores (running and
// candidate) as schema-less XML trees, with edit-config operations, subtree
// filtering (RFC 6241 section 6) and datastore locks.
//
// Without a YANG schema, list entries are recognised the way YANG encodes
// them: a list entry's key leaf comes first, so sibling elements of the same
// name whose first child is a leaf called name, id, index or key are
// different entries when those values differ; any other same-named
// siblings are the same container.
package datastore

import (
	"fmt"
	"strings"
	"sync"

	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

// Datastore names.
const (
	Running   = "running"
	Candidate = "candidate"
)

// keyLeaves are the first-child leaf names treated as list keys.
var keyLeaves = map[string]bool{"name": true, "id": true, "index": true, "key": true}

// Store is the device's configuration. Safe for concurrent use by sessions.
type Store struct {
	mu        sync.Mutex
	running   []*xmltree.Node
	candidate []*xmltree.Node
	// dirty is set when the candidate differs from running.
	dirty bool
	locks map[string]uint32 // datastore -> owning session
	// state supplies operational (config false) data; nil: none.
	state func() []*xmltree.Node
	// changes wakes the subscribers of running at every commit to it.
	changes changeSignal
}

// New starts with running = candidate = initial.
func New(initial []*xmltree.Node) *Store {
	return &Store{running: cloneAll(initial), candidate: cloneAll(initial), locks: map[string]uint32{},
		changes: newChangeSignal()}
}

func cloneAll(nodes []*xmltree.Node) []*xmltree.Node {
	out := make([]*xmltree.Node, len(nodes))
	for i, n := range nodes {
		out[i] = n.Clone()
	}
	return out
}

func (s *Store) tree(name string) (*[]*xmltree.Node, *rpc.Error) {
	switch name {
	case Running:
		return &s.running, nil
	case Candidate:
		return &s.candidate, nil
	}
	return nil, &rpc.Error{Type: "protocol", Tag: "invalid-value", Message: fmt.Sprintf("unknown datastore %q", name)}
}

// Get returns a copy of a datastore's content, filtered by a subtree
// filter's children when filter is non-nil.
func (s *Store) Get(name string, filter *xmltree.Node) ([]*xmltree.Node, *rpc.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.tree(name)
	if err != nil {
		return nil, err
	}
	if filter == nil {
		return cloneAll(*t), nil
	}
	return Filter(*t, filter.Children), nil
}

// SetState installs the source of the device's operational state data,
// which <get> returns beside running. It is called without the store's
// lock held, so it may read the store.
func (s *Store) SetState(source func() []*xmltree.Node) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state = source
}

// State returns the operational state data at this moment, filtered by a
// subtree filter's children when filter is non-nil.
func (s *Store) State(filter *xmltree.Node) []*xmltree.Node {
	s.mu.Lock()
	source := s.state
	s.mu.Unlock()
	if source == nil {
		return nil
	}
	if filter == nil {
		return source()
	}
	return Filter(source(), filter.Children)
}

// Edit applies <config> content to a datastore. defaultOp is merge,
// replace or none. On error the datastore is unchanged.
func (s *Store) Edit(session uint32, name, defaultOp string, config []*xmltree.Node) *rpc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.tree(name)
	if err != nil {
		return err
	}
	if err := s.checkLock(session, name); err != nil {
		return err
	}
	switch defaultOp {
	case "", "merge", "replace", "none":
	default:
		return &rpc.Error{Type: "protocol", Tag: "invalid-value", Message: "bad default-operation " + defaultOp}
	}
	if defaultOp == "" {
		defaultOp = "merge"
	}
	work := cloneAll(*t)
	if defaultOp == "replace" {
		work = nil
	}
	root := &xmltree.Node{Children: work}
	for _, c := range config {
		if err := edit(root, c, defaultOp); err != nil {
			return err
		}
	}
	*t = root.Children
	if name == Candidate {
		s.dirty = true
	} else {
		s.changes.committed()
	}
	return nil
}

// EditRunning merges config into running on behalf of a non-NETCONF
// client (session 0: the CLI, the HTTPS API), honouring NETCONF locks. A
// candidate without uncommitted changes follows running, so a later commit
// does not undo the edit.
func (s *Store) EditRunning(config []*xmltree.Node) *rpc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLock(0, Running); err != nil {
		return err
	}
	root := &xmltree.Node{Children: cloneAll(s.running)}
	for _, c := range config {
		if err := edit(root, c, "merge"); err != nil {
			return err
		}
	}
	s.running = root.Children
	if !s.dirty {
		s.candidate = cloneAll(s.running)
	}
	s.changes.committed()
	return nil
}

// Commit copies the candidate to running.
func (s *Store) Commit(session uint32) *rpc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLock(session, Running); err != nil {
		return err
	}
	s.running, s.dirty = cloneAll(s.candidate), false
	s.changes.committed()
	return nil
}

// Discard resets the candidate to running.
func (s *Store) Discard(session uint32) *rpc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkLock(session, Candidate); err != nil {
		return err
	}
	s.candidate, s.dirty = cloneAll(s.running), false
	return nil
}

// Lock takes a datastore for one session. RFC 6241: locking the candidate
// fails while it holds uncommitted changes.
func (s *Store) Lock(session uint32, name string) *rpc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.tree(name); err != nil {
		return err
	}
	if owner, held := s.locks[name]; held {
		return lockDenied(owner)
	}
	if name == Candidate && s.dirty {
		return &rpc.Error{Type: "protocol", Tag: "lock-denied", Message: "candidate has uncommitted changes",
			Info: []*xmltree.Node{xmltree.Leaf(rpc.BaseNS, "session-id", "0")}}
	}
	s.locks[name] = session
	return nil
}

// Unlock releases a lock the session holds.
func (s *Store) Unlock(session uint32, name string) *rpc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.tree(name); err != nil {
		return err
	}
	if owner, held := s.locks[name]; !held || owner != session {
		return &rpc.Error{Type: "protocol", Tag: "operation-failed", Message: "the datastore is not locked by this session"}
	}
	delete(s.locks, name)
	return nil
}

// ReleaseSession drops every lock of a closed session (RFC 6241 7.5).
func (s *Store) ReleaseSession(session uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, owner := range s.locks {
		if owner == session {
			delete(s.locks, name)
		}
	}
}

func (s *Store) checkLock(session uint32, name string) *rpc.Error {
	if owner, held := s.locks[name]; held && owner != session {
		return &rpc.Error{Type: "protocol", Tag: "in-use", Message: fmt.Sprintf("%s is locked by session %d", name, owner)}
	}
	return nil
}

func lockDenied(owner uint32) *rpc.Error {
	return &rpc.Error{Type: "protocol", Tag: "lock-denied", Message: "lock is already held",
		Info: []*xmltree.Node{xmltree.Leaf(rpc.BaseNS, "session-id", fmt.Sprint(owner))}}
}

// operation reads an element's nc:operation attribute.
func operation(n *xmltree.Node, inherited string) (string, *rpc.Error) {
	for _, a := range n.Attr {
		if a.Name.Local == "operation" && (a.Name.Space == rpc.BaseNS || a.Name.Space == "") {
			switch a.Value {
			case "merge", "replace", "create", "delete", "remove":
				return a.Value, nil
			}
			return "", &rpc.Error{Type: "protocol", Tag: "bad-attribute", Message: "bad operation " + a.Value,
				Info: []*xmltree.Node{xmltree.Leaf(rpc.BaseNS, "bad-attribute", "operation"),
					xmltree.Leaf(rpc.BaseNS, "bad-element", n.Name.Local)}}
		}
	}
	return inherited, nil
}

// stripOperation returns a copy of n without operation attributes.
func stripOperation(n *xmltree.Node) *xmltree.Node {
	c := &xmltree.Node{Name: n.Name, Text: n.Text}
	for _, a := range n.Attr {
		if a.Name.Local != "operation" {
			c.Attr = append(c.Attr, a)
		}
	}
	for _, ch := range n.Children {
		c.Children = append(c.Children, stripOperation(ch))
	}
	return c
}

// edit applies one config element under parent.
func edit(parent, n *xmltree.Node, inherited string) *rpc.Error {
	op, err := operation(n, inherited)
	if err != nil {
		return err
	}
	i := findMatch(parent.Children, n)
	switch op {
	case "none":
		if i < 0 {
			if n.IsLeaf() {
				return nil
			}
			parent.Children = append(parent.Children, &xmltree.Node{Name: n.Name, Attr: nil, Children: keyOnly(n)})
			i = len(parent.Children) - 1
		}
	case "create":
		if i >= 0 {
			return &rpc.Error{Type: "application", Tag: "data-exists", Message: n.Name.Local + " already exists"}
		}
		parent.Children = append(parent.Children, stripOperation(n))
		return nil
	case "delete", "remove":
		if i < 0 {
			if op == "delete" {
				return &rpc.Error{Type: "application", Tag: "data-missing", Message: n.Name.Local + " does not exist"}
			}
			return nil
		}
		parent.Children = append(parent.Children[:i], parent.Children[i+1:]...)
		return nil
	case "replace":
		if i < 0 {
			parent.Children = append(parent.Children, stripOperation(n))
		} else {
			parent.Children[i] = stripOperation(n)
		}
		return nil
	case "merge":
		if i < 0 || n.IsLeaf() {
			if i < 0 {
				parent.Children = append(parent.Children, stripOperation(n))
			} else {
				parent.Children[i] = stripOperation(n)
			}
			return nil
		}
	}
	target := parent.Children[i]
	for _, c := range n.Children {
		if err := edit(target, c, op); err != nil {
			return err
		}
	}
	return nil
}

func keyOnly(n *xmltree.Node) []*xmltree.Node {
	if k := listKey(n); k != nil {
		return []*xmltree.Node{{Name: k.Name, Text: k.Text}}
	}
	return nil
}

// IsListEntry reports whether n is treated as a list entry (first child is
// a key leaf), which RESTCONF encodes as a JSON array member.
func IsListEntry(n *xmltree.Node) bool { return listKey(n) != nil }

// listKey returns the key leaf of a list entry, or nil for a container.
func listKey(n *xmltree.Node) *xmltree.Node {
	if len(n.Children) == 0 {
		return nil
	}
	first := n.Children[0]
	if first.IsLeaf() && keyLeaves[first.Name.Local] {
		return first
	}
	return nil
}

// findMatch finds the sibling n edits: same name and namespace and, for
// list entries, the same key value.
func findMatch(siblings []*xmltree.Node, n *xmltree.Node) int {
	key := listKey(n)
	for i, s := range siblings {
		if s.Name != n.Name {
			continue
		}
		if key == nil {
			return i
		}
		if sk := listKey(s); sk != nil && sk.Name == key.Name && sk.Value() == key.Value() {
			return i
		}
	}
	return -1
}

// Filter applies subtree filter elements to data (RFC 6241 section 6):
// an empty filter element selects the whole subtree, a leaf with text is a
// content match, other elements are containment nodes filtered recursively.
// A filter element without a namespace matches any namespace.
func Filter(data []*xmltree.Node, filter []*xmltree.Node) []*xmltree.Node {
	var out []*xmltree.Node
	for _, d := range data {
		var merged *xmltree.Node
		for _, f := range filter {
			if picked := filterNode(d, f); picked != nil {
				if merged == nil {
					merged = picked
				} else {
					merged.Children = mergeSelected(merged.Children, picked.Children)
				}
			}
		}
		if merged != nil {
			out = append(out, merged)
		}
	}
	return out
}

func mergeSelected(have, add []*xmltree.Node) []*xmltree.Node {
	for _, a := range add {
		if findMatch(have, a) < 0 {
			have = append(have, a)
		}
	}
	return have
}

func filterNode(d, f *xmltree.Node) *xmltree.Node {
	if d.Name.Local != f.Name.Local || (f.Name.Space != "" && f.Name.Space != d.Name.Space) {
		return nil
	}
	if f.IsLeaf() {
		want := strings.TrimSpace(f.Text)
		if want != "" && (!d.IsLeaf() || d.Value() != want) {
			return nil
		}
		return d.Clone()
	}
	var content, others []*xmltree.Node
	for _, c := range f.Children {
		if c.IsLeaf() && strings.TrimSpace(c.Text) != "" {
			content = append(content, c)
		} else {
			others = append(others, c)
		}
	}
	for _, c := range content {
		found := false
		for _, dc := range d.Children {
			if filterNode(dc, c) != nil {
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	if len(others) == 0 {
		return d.Clone()
	}
	out := &xmltree.Node{Name: d.Name, Attr: d.Attr}
	for _, dc := range d.Children {
		for _, c := range content {
			if filterNode(dc, c) != nil {
				out.Children = append(out.Children, dc.Clone())
				break
			}
		}
	}
	selected := Filter(d.Children, others)
	if len(selected) == 0 {
		return nil
	}
	out.Children = append(out.Children, selected...)
	return out
}
