// Command worker treats cancellation as a clean shutdown.
package main

import (
	"context"
	"errors"
	"log"
	"os"
	"os/signal"
	"time"
)

type Job interface {
	Run(ctx context.Context) error
}

// run returns nil on shutdown: the operator asked the process to stop.
//
// ok: swallowcancel
func run(ctx context.Context, jobs []Job) error {
	for _, j := range jobs {
		if err := j.Run(ctx); err != nil {
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		}
	}
	return nil
}

// ok: detachedctx
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, nil); err != nil {
		log.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	<-sctx.Done()
}
