package gnmi

import (
	"context"
	"errors"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"transportlab/emulator/internal/configdb"
	"transportlab/emulator/internal/openconfig"
)

// Set applies deletes, then replaces, then updates as one commit of the
// device's store: all of them or, refused, none.
func (s *Server) Set(ctx context.Context, req *gpb.SetRequest) (*gpb.SetResponse, error) {
	if n := len(req.GetDelete()) + len(req.GetReplace()) + len(req.GetUpdate()) + len(req.GetUnionReplace()); n > MaxSetOperations {
		return nil, status.Errorf(codes.ResourceExhausted, "%d operations in one Set; at most %d", n, MaxSetOperations)
	}
	if len(req.GetUnionReplace()) > 0 {
		return nil, status.Error(codes.Unimplemented, "union_replace is not supported")
	}
	change, results, err := decodeSet(req)
	if err != nil {
		return nil, err
	}
	d := s.deviceOf(ctx)
	at, err := d.set(change)
	if err != nil {
		return nil, err
	}
	return &gpb.SetResponse{Prefix: req.GetPrefix(), Response: results, Timestamp: at.UnixNano()}, nil
}

// decodeSet reads a Set's operations into a change of the view, and the
// result the response lists for each.
func decodeSet(req *gpb.SetRequest) (openconfig.Change, []*gpb.UpdateResult, error) {
	var change openconfig.Change
	var results []*gpb.UpdateResult
	for _, p := range req.GetDelete() {
		path, err := fullPath(req.GetPrefix(), p)
		if err != nil {
			return change, nil, err
		}
		change.Delete = append(change.Delete, path)
		results = append(results, &gpb.UpdateResult{Path: p, Op: gpb.UpdateResult_DELETE})
	}
	for _, u := range req.GetReplace() {
		path, leaves, err := decodeUpdate(req.GetPrefix(), u)
		if err != nil {
			return change, nil, err
		}
		change.Replace = append(change.Replace, openconfig.Replacement{Path: path, Leaves: leaves})
		results = append(results, &gpb.UpdateResult{Path: u.GetPath(), Op: gpb.UpdateResult_REPLACE})
	}
	for _, u := range req.GetUpdate() {
		_, leaves, err := decodeUpdate(req.GetPrefix(), u)
		if err != nil {
			return change, nil, err
		}
		change.Update = append(change.Update, leaves)
		results = append(results, &gpb.UpdateResult{Path: u.GetPath(), Op: gpb.UpdateResult_UPDATE})
	}
	return change, results, nil
}

func decodeUpdate(prefix *gpb.Path, u *gpb.Update) (openconfig.Path, []openconfig.Write, error) {
	path, err := fullPath(prefix, u.GetPath())
	if err != nil {
		return nil, nil, err
	}
	leaves, err := writes(path, u.GetVal())
	return path, leaves, err
}

// set plans change on the device's view and commits its lines at once;
// it returns the commit's time.
func (d *device) set(change openconfig.Change) (time.Time, error) {
	d.setMu.Lock()
	defer d.setMu.Unlock()
	lines, err := openconfig.Lines(d.viewNow(), change)
	if err != nil {
		return time.Time{}, statusOf(err)
	}
	if len(lines) > 0 {
		if err := d.store.ApplyLines(lines); err != nil {
			if errors.Is(err, configdb.ErrLocked) {
				return time.Time{}, status.Error(codes.FailedPrecondition, err.Error())
			}
			return time.Time{}, status.Error(codes.InvalidArgument, err.Error())
		}
	}
	commit, _ := d.store.Datastore().Running()
	// Subscribers hear of it now, not when the follower next runs.
	d.refresh()
	return commit.At, nil
}

// viewNow is the device's view at this moment.
func (d *device) viewNow() openconfig.Device {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.view(time.Now())
}
