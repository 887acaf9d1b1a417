package fields

import (
	"context"
	"strings"
)

// A list error whose elements keep only the text (hasura/go-graphql-client).
type QueryError struct {
	Message    string
	Extensions map[string]any
}

type QueryErrors []QueryError

func (es QueryErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Message
	}
	return strings.Join(msgs, "; ")
}

func query(ctx context.Context, k string) error {
	_, err := get(ctx, k)
	if err != nil {
		return QueryErrors{{ // want `QueryErrors keeps only the text of err in its field Message, so the cancellation err may carry is lost`
			Message:    err.Error(),
			Extensions: map[string]any{"code": "request_error"},
		}}
	}
	return nil
}

// Near-miss: the element keeps the error and the list unwraps to it.
type keptError struct {
	Message string
	err     error
}

type keptErrors []keptError

func (es keptErrors) Error() string { return es[0].Message }

func (es keptErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e.err
	}
	return out
}

func queryKept(ctx context.Context, k string) error {
	_, err := get(ctx, k)
	if err != nil {
		return keptErrors{{Message: err.Error(), err: err}}
	}
	return nil
}

// Near-miss: elements that are errors themselves are judged one by one.
type multi []error

func (m multi) Error() string { return "multiple errors" }

func queryMulti(ctx context.Context, k string) error {
	_, err := get(ctx, k)
	if err != nil {
		return multi{err}
	}
	return nil
}
