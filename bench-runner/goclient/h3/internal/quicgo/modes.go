package quicgo

import (
	"transportlab/goclient/internal/job"
	"transportlab/goclient/internal/loop"
	"transportlab/goclient/internal/program"
)

// Modes are the HTTP/3 modes this client runs, against the device (h3/) and against the
// head-end in front of it (proxy-h3/); docs/modes.md describes each.
var Modes = map[string]program.Opener{
	"h3/fresh-conn":       perCommand(full),
	"h3/resumed":          perCommand(resumption),
	"h3/0rtt":             perCommand(earlyData),
	"h3/keep-alive":       kept(oneByOne),
	"h3/batch-post":       kept(batch),
	"h3/multi-cmd":        kept(concurrent),
	"proxy-h3/fresh-ssh":  headend(sshFresh, false),
	"proxy-h3/pooled-ssh": headend(sshPooled, false),
	"proxy-h3/keep-alive": headend(sshPooled, true),
}

func perCommand(kind handshake) program.Opener {
	return func(j job.Job, creds job.Credentials) (loop.Iterator, error) {
		return NewPerCommand(j, creds, kind)
	}
}

func kept(s shape) program.Opener {
	return func(j job.Job, creds job.Credentials) (loop.Iterator, error) {
		return NewKept(j, creds, s)
	}
}

// headend is a head-end mode; keep: one connection for every iteration, else one each.
func headend(ssh sshUse, keep bool) program.Opener {
	return func(j job.Job, creds job.Credentials) (loop.Iterator, error) {
		return NewHeadend(j, creds, ssh, keep)
	}
}
