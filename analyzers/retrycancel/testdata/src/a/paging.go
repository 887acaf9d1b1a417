package a

import (
	"context"
	"fmt"
)

type Page struct{ n int }

func (p Page) NotDone() bool                              { return p.n > 0 }
func (p *Page) NextWithContext(ctx context.Context) error { return ctx.Err() }

type Pager struct{}

func (Pager) List(ctx context.Context, id string) (Page, error) { return Page{}, ctx.Err() }

func usePage(Page) {}

// A page that fails to advance stays NotDone: the loop calls Next again,
// and after cancellation it spins. The init's List runs once: it is not
// what the loop repeats.
func walkPages(ctx context.Context, c Pager) error {
	var err error
	var p Page
	for p, err = c.List(ctx, "x"); p.NotDone(); err = p.NextWithContext(ctx) { // want `this retry loop in walkPages calls p.NextWithContext again after it fails without checking ctx`
		usePage(p)
	}
	return err
}

// Near-miss: each round checks ctx; the List in the init of the inner loop
// runs once per round of the outer loops, which are walks, not retries.
func walkZones(ctx context.Context, c Pager, zones map[string][]bool) error {
	var err error
	var p Page
	var errs []string
	for _, z := range zones {
		for _, private := range z {
			if private {
				for p, err = c.List(ctx, "x"); p.NotDone(); err = p.NextWithContext(ctx) {
					if ctx.Err() != nil {
						return context.Cause(ctx)
					}
					usePage(p)
				}
			}
			if err != nil {
				errs = append(errs, fmt.Sprintf("failed: %v", err))
			}
		}
	}
	if len(errs) != 0 {
		return fmt.Errorf("errors: %v", errs)
	}
	return nil
}
