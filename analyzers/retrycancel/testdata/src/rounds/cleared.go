package rounds

import (
	"context"
	"errors"
)

type iterator interface {
	Next(ctx context.Context) (string, error)
	Stop()
}

var errDone = errors.New("done")

type chained struct {
	source  <-chan iterator
	current iterator
}

// Near miss: a failed Next drops the current iterator, so the next round
// takes the nil branch, which selects on ctx.Done().
func (c *chained) Next(ctx context.Context) (string, error) {
	for {
		if c.current == nil {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case it, ok := <-c.source:
				if !ok {
					return "", errDone
				}
				c.current = it
				continue
			}
		}
		v, err := c.current.Next(ctx)
		if err != nil {
			c.current.Stop()
			c.current = nil
			continue
		}
		return v, nil
	}
}

// The failure keeps the current iterator: the next round calls it again
// without passing the select.
func (c *chained) NextKeeping(ctx context.Context) (string, error) {
	for { // want `this retry loop in NextKeeping checks ctx only on some rounds`
		if c.current == nil {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case it, ok := <-c.source:
				if !ok {
					return "", errDone
				}
				c.current = it
				continue
			}
		}
		v, err := c.current.Next(ctx)
		if err != nil {
			if errors.Is(err, errDone) {
				c.current = nil
			}
			continue
		}
		return v, nil
	}
}

func (c *chained) refill() { c.current = <-c.source }

// The round that clears the iterator refills it through a method of c
// before going round: the cleared branch may be taken again.
func (c *chained) NextRefilling(ctx context.Context) (string, error) {
	for { // want `this retry loop in NextRefilling checks ctx only on some rounds`
		if c.current == nil {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case it := <-c.source:
				c.current = it
				continue
			}
		}
		v, err := c.current.Next(ctx)
		if err != nil {
			c.current = nil
			c.refill()
			continue
		}
		return v, nil
	}
}
