package retry

import (
	"context"
	"log/slog"
	"time"
)

// Message is one job pulled from the queue.
type Message struct {
	ID      string
	Body    []byte
	Receipt string
}

// Queue is the job queue the worker drains.
type Queue interface {
	Receive(ctx context.Context, max int) ([]Message, error)
	Ack(ctx context.Context, receipt string) error
}

// JobHandler processes one job.
type JobHandler func(ctx context.Context, m Message) error

// JobWorker pulls batches of jobs and runs them.
type JobWorker struct {
	queue  Queue
	handle JobHandler
	log    *slog.Logger
	batch  int
}

// Run pulls batches from the queue and hands each job to the handler. When a
// receive fails it logs, waits a second and asks again.
//
// From: writer/cerebro#273
// bug: retrycancel
func (w *JobWorker) Run(ctx context.Context) {
	for {
		msgs, err := w.queue.Receive(ctx, w.batch)
		if err != nil {
			w.log.Warn("receive failed, retrying", "err", err)
			time.Sleep(time.Second)
			continue
		}
		for _, m := range msgs {
			if err := w.handle(ctx, m); err != nil {
				w.log.Error("job failed", "id", m.ID, "err", err)
				continue
			}
			if err := w.queue.Ack(ctx, m.Receipt); err != nil {
				w.log.Warn("ack failed", "id", m.ID, "err", err)
			}
		}
	}
}

// RunNearMiss is Run with the failed receive ending the loop once ctx is
// done and the pause between receives woken by cancellation.
//
// ok: retrycancel
func (w *JobWorker) RunNearMiss(ctx context.Context) error {
	for {
		msgs, err := w.queue.Receive(ctx, w.batch)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			w.log.Warn("receive failed, retrying", "err", err)
			if err := sleepCtx(ctx, time.Second); err != nil {
				return err
			}
			continue
		}
		for _, m := range msgs {
			if err := w.handle(ctx, m); err != nil {
				w.log.Error("job failed", "id", m.ID, "err", err)
				continue
			}
			if err := w.queue.Ack(ctx, m.Receipt); err != nil {
				w.log.Warn("ack failed", "id", m.ID, "err", err)
			}
		}
	}
}
