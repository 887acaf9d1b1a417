package a

import "context"

// upload queues parts for a consumer bound to the upload's context.
type upload struct {
	ctx   context.Context
	parts chan<- []byte
	items chan []byte
}

func (u *upload) Write(p []byte) (int, error) {
	select {
	case u.parts <- p:
		return len(p), nil
	case <-u.ctx.Done():
		return len(p), nil // want `Write returns a result with a nil error when u.ctx is done, so its caller is told the operation was done although it was abandoned`
	}
}

// Near miss: the context's error is reported.
func (u *upload) WriteErr(p []byte) (int, error) {
	select {
	case u.parts <- p:
		return len(p), nil
	case <-u.ctx.Done():
		return 0, u.ctx.Err()
	}
}

// Near miss: nothing with a nil error, the documented "stopped".
func (u *upload) Next() ([]byte, error) {
	select {
	case p := <-u.items:
		return p, nil
	case <-u.ctx.Done():
		return nil, nil
	}
}

// Near miss: a loop that serves for the receiver's lifetime stops cleanly
// with it.
func (u *upload) Serve(handle func([]byte) int) (int, error) {
	n := 0
	for {
		select {
		case p := <-u.items:
			n += handle(p)
		case <-u.ctx.Done():
			return n, nil
		}
	}
}
