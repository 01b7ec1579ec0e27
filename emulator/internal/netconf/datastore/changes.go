package datastore

import "time"

// Commit identifies one state of the running datastore: Seq counts the
// changes since the store was made, At is when the latest one was
// committed (CLOCK_REALTIME, so another process on the host can compare
// it with its own clock).
type Commit struct {
	Seq uint64
	At  time.Time
}

// changeSignal is the running datastore's change notification: a channel
// closed, and replaced, by every commit to running. Closing a channel
// wakes every waiter at once and never blocks the committer, however
// many subscribers there are or however slow.
type changeSignal struct {
	latest Commit
	next   chan struct{}
}

func newChangeSignal() changeSignal {
	return changeSignal{latest: Commit{At: time.Now()}, next: make(chan struct{})}
}

// committed records a change of running; the caller holds the store's lock.
func (c *changeSignal) committed() {
	c.latest = Commit{Seq: c.latest.Seq + 1, At: time.Now()}
	close(c.next)
	c.next = make(chan struct{})
}

// Running returns the latest commit to the running datastore and a
// channel closed at the next one, whichever transport makes it (NETCONF
// edit-config or commit, RESTCONF, CLI configuration lines, gNMI Set).
// A subscriber reads the datastore after this call: what it reads is at
// least this commit, and a later commit closes the channel.
func (s *Store) Running() (Commit, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changes.latest, s.changes.next
}
