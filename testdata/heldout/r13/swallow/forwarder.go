package swallow

import "context"

// Message is one record pulled from a partition.
type Message struct {
	Offset int64
	Value  []byte
}

// OffsetCommitter marks messages as processed.
type OffsetCommitter interface {
	Commit(ctx context.Context, offset int64) error
}

// Forwarder hands claimed messages to the application.
type Forwarder struct {
	incoming  chan Message
	committer OffsetCommitter
}

// forward pushes every message to the consumer. When the session ends
// while a send is blocked it returns nil, so Consume commits the offset
// of a message nobody received.
// From: cloudevents/sdk-go#936
// bug: swallowcancel
func (f *Forwarder) forward(ctx context.Context, claim <-chan Message) (int64, error) {
	last := int64(-1)
	for msg := range claim {
		select {
		case f.incoming <- msg:
			last = msg.Offset
		case <-ctx.Done():
			return msg.Offset, nil
		}
	}
	return last, nil
}

// forwardNearMiss reports the session's end to the caller.
// ok: swallowcancel
func (f *Forwarder) forwardNearMiss(ctx context.Context, claim <-chan Message) (int64, error) {
	last := int64(-1)
	for msg := range claim {
		select {
		case f.incoming <- msg:
			last = msg.Offset
		case <-ctx.Done():
			return last, ctx.Err()
		}
	}
	return last, nil
}

// Consume forwards a claim and commits what was delivered.
// ok: swallowcancel
func (f *Forwarder) Consume(ctx context.Context, claim <-chan Message) error {
	last, err := f.forwardNearMiss(ctx, claim)
	if err != nil {
		return err
	}
	if last < 0 {
		return nil
	}
	return f.committer.Commit(ctx, last)
}
