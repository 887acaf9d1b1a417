package fix

import (
	"context"
	"log"
	"net/http"
	"time"
)

type Client struct{}

func (c *Client) Get(ctx context.Context, k string) (int, error) { return 0, nil }
func (c *Client) Ping(ctx context.Context) error                 { return nil }

func Fetch(ctx context.Context, c *Client) (int, error) {
	for {
		v, err := c.Get(ctx, "k")
		if err == nil {
			return v, nil
		}
		log.Print(err)
		time.Sleep(2 * time.Second) // want `time.Sleep ignores ctx`
	}
}

func Loop(ctx context.Context, c *Client) {
	for {
		if err := c.Ping(ctx); err != nil {
			<-time.After(time.Second) // want `<-time.After ignores ctx`
		}
	}
}

func Spin(ctx context.Context, c *Client) (string, error) {
	for { // want `calls c.Ping again`
		if err := c.Ping(ctx); err == nil {
			return "ok", nil
		}
	}
}

// No error result: no fix.
func Count(ctx context.Context, c *Client) int {
	n := 0
	for { // want `calls c.Ping again`
		n++
		if err := c.Ping(ctx); err == nil {
			return n
		}
	}
}

func ready() bool { return true }

// A poll in a handler: the request's context is in reach.
func Handler(w http.ResponseWriter, r *http.Request) {
	for !ready() {
		time.Sleep(50 * time.Millisecond) // want `time.Sleep ignores r.Context\(\)`
	}
}

// A ticker range: the check goes at the top of the loop.
func Tick(ctx context.Context, c *Client) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for range t.C { // want `ranging over t.C ignores ctx`
		if err := c.Ping(ctx); err == nil {
			return nil
		}
	}
	return nil
}

// A select over the ticker only: a case for the context joins it, which
// also gives the loop its missing check.
func Refresh(ctx context.Context, c *Client) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select { // want `this select over timers only ignores ctx and the loop never checks it`
		case <-t.C:
		}
		if err := c.Ping(ctx); err == nil {
			return nil
		}
	}
}

// A receive from a ticker becomes a select on the context and the ticker.
func Beat(ctx context.Context, c *Client) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		if err := c.Ping(ctx); err == nil {
			return nil
		}
		<-t.C // want `<-t.C ignores ctx and the loop never checks it`
	}
}

func Pump(ctx context.Context, in <-chan int, out chan<- int) error {
	for {
		select {
		case <-ctx.Done(): // want `this case <-ctx.Done\(\) does not leave the loop in Pump`
			log.Print("stopping")
		case v := <-in:
			out <- v
		}
	}
}

func Pet(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done(): // want `this case <-ctx.Done\(\) does not leave the loop in Pet`
		case <-tick:
			log.Print("pet")
		}
	}
}

func Sweep(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done(): // want `this case <-ctx.Done\(\) does not leave the loop in Sweep`
			break
		case <-tick:
			log.Print("sweep")
		}
	}
}
