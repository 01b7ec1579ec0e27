package datastore

import (
	"sync"
	"testing"
	"time"

	"transportlab/emulator/internal/netconf/rpc"
	"transportlab/emulator/internal/netconf/xmltree"
)

func TestRunningWakesSubscribersAtEveryCommitToRunning(t *testing.T) {
	s := New([]*xmltree.Node{xmltree.Elem("urn:x", "top", xmltree.Leaf("urn:x", "a", "1"))})
	first, next := s.Running()
	woken := func() bool {
		select {
		case <-next:
			return true
		default:
			return false
		}
	}
	// The candidate is not running: no wake-up.
	if err := s.Edit(1, Candidate, "merge", []*xmltree.Node{xmltree.Elem("urn:x", "top", xmltree.Leaf("urn:x", "a", "2"))}); err != nil {
		t.Fatal(err)
	}
	if woken() {
		t.Fatal("an edit of the candidate woke running's subscribers")
	}
	before := time.Now()
	for _, commit := range []func() *rpc.Error{
		func() *rpc.Error { return s.Commit(1) },
		func() *rpc.Error {
			return s.Edit(1, Running, "merge", []*xmltree.Node{xmltree.Elem("urn:x", "top", xmltree.Leaf("urn:x", "a", "3"))})
		},
		func() *rpc.Error {
			return s.EditRunning([]*xmltree.Node{xmltree.Elem("urn:x", "top", xmltree.Leaf("urn:x", "a", "4"))})
		},
	} {
		if err := commit(); err != nil {
			t.Fatal(err)
		}
		if !woken() {
			t.Fatal("a commit to running woke nobody")
		}
		var latest Commit
		latest, next = s.Running()
		if latest.Seq <= first.Seq || latest.At.Before(before) {
			t.Errorf("commit %+v after %+v", latest, first)
		}
		first = latest
	}
	// A refused edit commits nothing.
	if err := s.Lock(7, Running); err != nil {
		t.Fatal(err)
	}
	if err := s.EditRunning(nil); err == nil {
		t.Fatal("an edit past another session's lock")
	}
	if woken() {
		t.Error("a refused edit woke running's subscribers")
	}
}

func TestRunningUnderConcurrentCommits(t *testing.T) {
	s := New(nil)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Go(func() {
			for k := 0; k < 50; k++ {
				_, next := s.Running()
				if err := s.EditRunning([]*xmltree.Node{xmltree.Leaf("urn:x", "n", "v")}); err != nil {
					t.Error(err)
					return
				}
				<-next // closed by this commit if no other came first
			}
		})
	}
	wg.Wait()
	if c, _ := s.Running(); c.Seq != 200 {
		t.Errorf("%d commits counted, want 200", c.Seq)
	}
}
