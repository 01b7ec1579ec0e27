package gnmi

import (
	"context"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"transportlab/emulator/internal/openconfig"
)

// Get answers each path with one notification, stamped with the latest
// change of the values it holds (the commit that set them; the moment of
// the read for counters and the clock).
func (s *Server) Get(ctx context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	if err := checkEncoding(req.GetEncoding()); err != nil {
		return nil, err
	}
	kinds, err := kindsOf(req.GetType())
	if err != nil {
		return nil, err
	}
	prefixElems, err := fullPath(req.GetPrefix(), nil)
	if err != nil {
		return nil, err
	}
	paths := req.GetPath()
	if len(paths) == 0 {
		paths = []*gpb.Path{{}}
	}
	var full []openconfig.Path
	for _, p := range paths {
		path, err := fullPath(req.GetPrefix(), p)
		if err != nil {
			return nil, err
		}
		full = append(full, path)
	}
	now := time.Now()
	leaves := s.deviceOf(ctx).current(now)
	prefix, prefixLen := responsePrefix(req.GetPrefix(), prefixElems)
	resp := &gpb.GetResponse{}
	for _, path := range full {
		selected, err := selectLeaves(path, leaves)
		if err != nil {
			return nil, err
		}
		var ofKind []openconfig.Leaf
		var latest time.Time
		for _, l := range selected {
			if kinds[l.Kind] {
				ofKind = append(ofKind, l.Leaf)
				if l.at.After(latest) {
					latest = l.at
				}
			}
		}
		if latest.IsZero() { // the data type leaves nothing: answered as of now
			latest = now
		}
		updates, err := treeUpdates(path, ofKind, prefixLen, req.GetEncoding())
		if err != nil {
			return nil, err
		}
		resp.Notification = append(resp.Notification,
			&gpb.Notification{Timestamp: latest.UnixNano(), Prefix: prefix, Update: updates})
	}
	return resp, nil
}

// kindsOf is the leaves a Get's data type selects: CONFIG the
// configuration leaves, STATE the state leaves (applied configuration and
// operational), OPERATIONAL the operational ones; each with the list keys
// that name them.
func kindsOf(t gpb.GetRequest_DataType) (map[openconfig.Kind]bool, error) {
	switch t {
	case gpb.GetRequest_ALL:
		return map[openconfig.Kind]bool{openconfig.Config: true, openconfig.State: true, openconfig.Operational: true,
			openconfig.Key: true}, nil
	case gpb.GetRequest_CONFIG:
		return map[openconfig.Kind]bool{openconfig.Config: true, openconfig.Key: true}, nil
	case gpb.GetRequest_STATE:
		return map[openconfig.Kind]bool{openconfig.State: true, openconfig.Operational: true, openconfig.Key: true}, nil
	case gpb.GetRequest_OPERATIONAL:
		return map[openconfig.Kind]bool{openconfig.Operational: true, openconfig.Key: true}, nil
	}
	return nil, status.Errorf(codes.InvalidArgument, "unknown data type %d", t)
}

// selectLeaves is the leaves path names; NotFound if none, telling a path
// of the model from one it has no node for.
func selectLeaves(path openconfig.Path, leaves []stamped) ([]stamped, error) {
	var out []stamped
	for _, l := range leaves {
		if path.Matches(l.Path) {
			out = append(out, l)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if !openconfig.InSchema(path) {
		return nil, status.Errorf(codes.NotFound, "%s: no such node in openconfig-interfaces or openconfig-system", path)
	}
	return nil, status.Errorf(codes.NotFound, "%s: no data", path)
}
