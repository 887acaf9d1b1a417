package swallow

import (
	"context"
	"errors"
	"sync"
)

// Controller is one reconcile loop.
type Controller interface {
	Run(ctx context.Context, workers int) error
}

// Operator runs a set of controllers until the process is told to stop.
type Operator struct {
	controllers []Controller
	mu          sync.Mutex
	errs        []error
}

// start launches every controller, recording their errors.
// ok: swallowcancel
func (o *Operator) start(ctx context.Context, wg *sync.WaitGroup) {
	for _, c := range o.controllers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Run(ctx, 1); err != nil {
				o.mu.Lock()
				o.errs = append(o.errs, err)
				o.mu.Unlock()
			}
		}()
	}
}

// Run blocks until ctx is done and then reports success, so a startup
// deadline or a cancellation with a cause exits the process with status 0.
// From: openshift/cluster-openshift-apiserver-operator#549
// bug: swallowcancel
func (o *Operator) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	o.start(ctx, &wg)
	<-ctx.Done()
	wg.Wait()
	return o.controllerErrs()
}

// RunNearMiss returns the cause of the cancellation.
// ok: swallowcancel
func (o *Operator) RunNearMiss(ctx context.Context) error {
	var wg sync.WaitGroup
	o.start(ctx, &wg)
	<-ctx.Done()
	wg.Wait()
	return errors.Join(context.Cause(ctx), o.controllerErrs())
}

// controllerErrs joins the errors the controllers returned.
// ok: swallowcancel
func (o *Operator) controllerErrs() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return errors.Join(o.errs...)
}
