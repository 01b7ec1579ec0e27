package quicgo

import (
	"crypto/tls"
	"errors"
	"time"
)

// tickets is crypto/tls's LRU session cache, telling when the server's ticket arrives, so
// a mode that resumes holds a ticket before the runner measures anything.
type tickets struct {
	tls.ClientSessionCache
	stored chan *tls.ClientSessionState
}

func newTickets() *tickets {
	return &tickets{ClientSessionCache: tls.NewLRUClientSessionCache(0), stored: make(chan *tls.ClientSessionState, 1)}
}

// Put files the ticket, and holds it for await unless one already waits there (a mode
// awaits only the first; later tickets are only filed).
func (t *tickets) Put(key string, session *tls.ClientSessionState) {
	t.ClientSessionCache.Put(key, session)
	if session == nil {
		return
	}
	select {
	case t.stored <- session:
	default:
	}
}

// await is the next ticket the server sends, within timeout.
func (t *tickets) await(timeout time.Duration) (*tls.ClientSessionState, error) {
	select {
	case session := <-t.stored:
		return session, nil
	case <-time.After(timeout):
		return nil, errors.New("no session ticket from the server")
	}
}

// allowsEarlyData says whether the server's ticket lets the next connection send 0-RTT.
func allowsEarlyData(session *tls.ClientSessionState) (bool, error) {
	_, state, err := session.ResumptionState()
	if err != nil {
		return false, err
	}
	return state != nil && state.EarlyData, nil
}
