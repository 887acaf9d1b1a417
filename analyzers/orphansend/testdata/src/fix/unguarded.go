package fix

import "context"

type feeder struct {
	out  chan int
	done chan bool
}

func (c *feeder) feed(ctx context.Context, items []int) {
	for _, it := range items {
		select {
		case c.out <- it:
		case <-ctx.Done():
			return
		}
	}
	c.done <- true // want `this send on c.done waits for a receiver with no way out`
}
