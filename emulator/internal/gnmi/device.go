package gnmi

import (
	"sync"
	"time"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/openconfig"
)

// stamped is a leaf and the time its value last changed: the commit that
// set it, or, for a volatile leaf, the moment it was read.
type stamped struct {
	openconfig.Leaf
	at time.Time
}

// change is what one commit did to the view: leaves set or changed, and
// leaves gone, at the commit's time.
type change struct {
	at      time.Time
	updated []stamped
	deleted []openconfig.Path
}

// watcher receives the changes of a device's view. It must not block: it
// queues, or drops its subscriber.
type watcher interface{ changed(change) }

// device is one emulated device: its store and the OpenConfig view of it
// as last committed, each leaf stamped with the commit that set it. It
// follows the datastore's change notification (any transport's commits)
// and tells its watchers what changed.
type device struct {
	platform string
	store    *configdb.Store

	mu sync.Mutex
	// seq is the datastore commit the view is at.
	seq    uint64
	leaves map[string]stamped // non-volatile leaves, by path
	// lastChange is when each interface's status last changed.
	lastChange map[string]time.Time
	watchers   map[watcher]struct{}
	// setMu serialises Sets, each planned on the view it commits over.
	setMu sync.Mutex
}

func newDevice(platform string, store *configdb.Store) *device {
	d := &device{platform: platform, store: store, lastChange: map[string]time.Time{}, watchers: map[watcher]struct{}{}}
	d.mu.Lock()
	d.refreshLocked()
	d.mu.Unlock()
	return d
}

// follow keeps the view at the datastore's latest commit until stop closes.
func (d *device) follow(stop <-chan struct{}) {
	for {
		_, next := d.store.Datastore().Running()
		d.refresh()
		select {
		case <-next:
		case <-stop:
			return
		}
	}
}

// view is the device's OpenConfig view at now.
func (d *device) view(now time.Time) openconfig.Device {
	lines, _ := d.store.Lines()
	return openconfig.Device{Platform: d.platform, Hostname: d.store.Hostname(), Lines: lines,
		Booted: d.store.BootTime(), Now: now, LastChange: d.lastChange}
}

// refresh brings the view to the latest commit and tells the watchers
// what changed.
func (d *device) refresh() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refreshLocked()
}

func (d *device) refreshLocked() {
	ds := d.store.Datastore()
	commit, _ := ds.Running()
	if d.leaves != nil && commit.Seq == d.seq {
		return
	}
	// The view is read between two looks at the commit: equal, it is that
	// commit's, and its changes carry that commit's time.
	var leaves []openconfig.Leaf
	for {
		leaves = openconfig.Leaves(d.view(time.Now()))
		again, _ := ds.Running()
		if again.Seq == commit.Seq {
			break
		}
		commit = again
	}
	if d.statusChanged(leaves, commit.At) {
		leaves = openconfig.Leaves(d.view(time.Now()))
	}
	c := change{at: commit.At}
	next := make(map[string]stamped, len(leaves))
	for _, l := range leaves {
		if l.Volatile {
			continue
		}
		key := l.Path.String()
		old, had := d.leaves[key]
		s := stamped{Leaf: l, at: commit.At}
		if had && old.Value == l.Value {
			s.at = old.at
		} else if d.leaves != nil {
			c.updated = append(c.updated, s)
		}
		next[key] = s
	}
	for key, old := range d.leaves {
		if _, kept := next[key]; !kept {
			c.deleted = append(c.deleted, old.Path)
		}
	}
	d.leaves, d.seq = next, commit.Seq
	if len(c.updated)+len(c.deleted) == 0 {
		return
	}
	for w := range d.watchers {
		w.changed(c)
	}
}

// statusChanged records the time of every interface whose oper-status
// differs from the view's, and reports whether there was one.
func (d *device) statusChanged(leaves []openconfig.Leaf, at time.Time) bool {
	if d.leaves == nil {
		return false
	}
	found := false
	for _, l := range leaves {
		if len(l.Path) != 4 || l.Path[3].Name != "oper-status" || l.Path[2].Name != "state" {
			continue
		}
		if old, had := d.leaves[l.Path.String()]; !had || old.Value != l.Value {
			d.lastChange[l.Path[1].Keys["name"]] = at
			found = true
		}
	}
	return found
}

// current is the view at now, each leaf stamped; volatile leaves at now.
func (d *device) current(now time.Time) []stamped {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refreshLocked()
	return d.currentLocked(now)
}

func (d *device) currentLocked(now time.Time) []stamped {
	leaves := openconfig.Leaves(d.view(now))
	out := make([]stamped, len(leaves))
	for k, l := range leaves {
		out[k] = stamped{Leaf: l, at: now}
		if s, ok := d.leaves[l.Path.String()]; ok && !l.Volatile {
			out[k].at = s.at
		}
	}
	return out
}

// watch adds w and returns the view at now, as current does, in one step:
// w is told every change after that view and none before. w's changed
// may run as soon as watch returns.
func (d *device) watch(w watcher, now time.Time) []stamped {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refreshLocked()
	d.watchers[w] = struct{}{}
	return d.currentLocked(now)
}

func (d *device) unwatch(w watcher) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.watchers, w)
}
