package openconfig

import "fmt"

// Code classifies why a request is refused; the gNMI server maps it to a
// gRPC status code of the same name.
type Code int

const (
	// InvalidArgument: malformed, read-only or out of range.
	InvalidArgument Code = iota + 1
	// NotFound: the path names no node of the view.
	NotFound
)

// Error is a refused request.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

func invalid(format string, args ...any) *Error {
	return &Error{Code: InvalidArgument, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *Error {
	return &Error{Code: NotFound, Message: fmt.Sprintf(format, args...)}
}
