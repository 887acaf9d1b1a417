package fixother

import "context"

type conn struct {
	ctx context.Context
	in  chan int
}

func (c *conn) read(ctx context.Context) (int, error) {
	select {
	case v := <-c.in:
		return v, nil
	case <-c.ctx.Done():
		return 0, ctx.Err() // want `this case runs when c.ctx is done but returns ctx.Err\(\)`
	}
}
