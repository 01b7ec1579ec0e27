package gnmi

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// authenticate checks the username and password metadata of a call, as
// gNMI clients send them (gnmi_cli -with_user_pass, pygnmi), against the
// device account.
func (s *Server) authenticate(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	if !s.o.Credentials.Matches(first(md, "username"), first(md, "password")) {
		s.o.Recorder.AuthFailed(transport)
		return status.Error(codes.Unauthenticated, "bad or missing username and password metadata")
	}
	return nil
}

func first(md metadata.MD, key string) string {
	if v := md.Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// unary authenticates a call, then counts it by its status code.
func (s *Server) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := s.authenticated(ctx, func() (any, error) { return handler(ctx, req) })
	s.o.Recorder.GNMIRPC(rpcName(info.FullMethod), status.Code(err).String())
	return resp, err
}

// stream does the same for a streaming call (Subscribe).
func (s *Server) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	_, err := s.authenticated(ss.Context(), func() (any, error) { return nil, handler(srv, ss) })
	s.o.Recorder.GNMIRPC(rpcName(info.FullMethod), status.Code(err).String())
	return err
}

func (s *Server) authenticated(ctx context.Context, call func() (any, error)) (any, error) {
	if err := s.authenticate(ctx); err != nil {
		return nil, err
	}
	return call()
}

// rpcName is the method of "/gnmi.gNMI/Get".
func rpcName(fullMethod string) string {
	for k := len(fullMethod) - 1; k >= 0; k-- {
		if fullMethod[k] == '/' {
			return fullMethod[k+1:]
		}
	}
	return fullMethod
}
