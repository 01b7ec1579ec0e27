package restconf

import (
	"encoding/xml"
	"fmt"

	"transportlab/emulator/internal/netconf/datastore"
	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

// Edit operations: RFC 8072's, less insert and move (the schema-less store
// keeps no user-ordered lists), which are RFC 6241's edit-config operations.
const (
	opMerge   = "merge"
	opReplace = "replace"
	opCreate  = "create"
	opDelete  = "delete"
	opRemove  = "remove"
)

// change is one edit of the running datastore: what a PATCH, PUT or DELETE
// makes, or one edit of a YANG Patch.
type change struct {
	id    string // the YANG Patch edit-id; "" otherwise
	op    string
	steps []step        // the target, from the datastore root
	value *xmltree.Node // the target's new content; nil for delete and remove
}

// editError is why a set of changes was not applied: the change at index
// (-1 when none in particular, such as a NETCONF lock) and the error.
type editError struct {
	index int
	err   *rpc.Error
}

// tree is the change as <config> content: the target under its ancestors,
// carrying the operation; the ancestors merge (they exist: apply checks).
func (c change) tree() (*xmltree.Node, error) {
	last := c.steps[len(c.steps)-1]
	var n *xmltree.Node
	if c.value == nil {
		n = xmltree.Elem(last.space, last.name)
		if last.key != nil {
			n.Children = []*xmltree.Node{xmltree.Leaf(last.space, "name", *last.key)}
		}
	} else {
		if c.value.Name.Local != last.name || c.value.Name.Space != last.space {
			return nil, fmt.Errorf("the value must be %q, the target resource", last.name)
		}
		if last.key != nil && (!datastore.IsListEntry(c.value) || c.value.Children[0].Value() != *last.key) {
			return nil, fmt.Errorf("the key in the value differs from the key in the target")
		}
		n = withoutOperations(c.value)
	}
	n.Attr = append(n.Attr, xml.Attr{Name: xml.Name{Space: rpc.BaseNS, Local: "operation"}, Value: c.op})
	for i := len(c.steps) - 2; i >= 0; i-- {
		parent := xmltree.Elem(c.steps[i].space, c.steps[i].name)
		if c.steps[i].key != nil {
			parent.Children = append(parent.Children, xmltree.Leaf(c.steps[i].space, "name", *c.steps[i].key))
		}
		parent.Children = append(parent.Children, n)
		n = parent
	}
	return n, nil
}

// withoutOperations copies n without NETCONF operation attributes: a
// RESTCONF body states content, the method or edit states the operation.
func withoutOperations(n *xmltree.Node) *xmltree.Node {
	c := &xmltree.Node{Name: n.Name, Text: n.Text}
	for _, a := range n.Attr {
		if a.Name.Local != "operation" {
			c.Attr = append(c.Attr, a)
		}
	}
	for _, ch := range n.Children {
		c.Children = append(c.Children, withoutOperations(ch))
	}
	return c
}

// apply makes every change or none. Each is first tried in order on a
// private copy of running, which names the change that fails and checks
// what the store's merge of ancestors cannot (a delete's target must
// exist); then all are applied to running in one edit, atomically, as a
// CLI or API edit is (NETCONF locks honoured). existed reports, per
// change, whether its target was there before it.
func apply(store *datastore.Store, changes []change) (existed []bool, fail *editError) {
	nodes, rerr := store.Get(datastore.Running, nil)
	if rerr != nil {
		return nil, &editError{-1, rerr}
	}
	trial := datastore.New(nodes)
	var trees []*xmltree.Node
	for i, c := range changes {
		current, _ := trial.Get(datastore.Running, nil)
		present := find(current, c.steps) != nil
		existed = append(existed, present)
		if c.op == opDelete && !present {
			return nil, &editError{i, &rpc.Error{Type: "application", Tag: "data-missing", Message: "the target does not exist"}}
		}
		if c.op == opRemove && !present {
			continue
		}
		tree, err := c.tree()
		if err != nil {
			return nil, &editError{i, &rpc.Error{Type: "protocol", Tag: "invalid-value", Message: err.Error()}}
		}
		if rerr := trial.Edit(0, datastore.Running, opMerge, []*xmltree.Node{tree}); rerr != nil {
			return nil, &editError{i, rerr}
		}
		trees = append(trees, tree)
	}
	if len(trees) == 0 {
		return existed, nil
	}
	if rerr := store.EditRunning(trees); rerr != nil {
		return nil, &editError{-1, rerr}
	}
	return existed, nil
}
