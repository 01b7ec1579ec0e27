package grpcgo

import (
	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/program"
)

// Modes are the gNMI modes this client runs (docs/modes.md describes each), and
// gnmi/sample-rate, which gnmi/stream's session runs for its updates per second.
var Modes = map[string]program.Opener{
	"gnmi/fresh-conn":     opener(func(c *client) (loop.Iterator, error) { return NewFreshConn(c) }),
	"gnmi/reuse-conn":     kept(func(k *Kept) loop.Iterator { return ReuseConn{k} }),
	"gnmi/get-multi":      kept(func(k *Kept) loop.Iterator { return GetMulti{k} }),
	"gnmi/set-batch":      opener(func(c *client) (loop.Iterator, error) { return newSetBatch(c) }),
	"gnmi/subscribe-once": kept(func(k *Kept) loop.Iterator { return SubscribeOnce{k} }),
	"gnmi/subscribe-poll": kept(func(k *Kept) loop.Iterator { return &SubscribePoll{Kept: k} }),
	"gnmi/stream":         opener(func(c *client) (loop.Iterator, error) { return newStream(c) }),
	"gnmi/sample-rate":    kept(func(k *Kept) loop.Iterator { return SampleRate{k} }),
}

func opener(open func(*client) (loop.Iterator, error)) program.Opener {
	return func(j job.Job, creds job.Credentials) (loop.Iterator, error) {
		return open(newClient(j, creds))
	}
}

func kept(wrap func(*Kept) loop.Iterator) program.Opener {
	return opener(func(c *client) (loop.Iterator, error) {
		k, err := openKept(c)
		if err != nil {
			return nil, err
		}
		return wrap(k), nil
	})
}
