package fix

import (
	"context"
	"iter"
	"log"

	"store"
)

func scanPairs(ctx context.Context, prefix string) iter.Seq2[string, error] { return nil }

// collect stops at the first failed read and returns the pairs read so
// far as the whole answer.
func collect(ctx context.Context, prefix string) ([]string, error) {
	var out []string
	for p, err := range scanPairs(ctx, prefix) {
		if err != nil { // want `err may carry the cancellation of ctx and this branch leaves the loop for a return of a nil error, so collect returns what it gathered before the cancellation as if the work had finished`
			break
		}
		out = append(out, p)
	}
	return out, nil
}

// pushAll logs a failed write and stops, reporting success.
func pushAll(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := store.Put(ctx, k, "v"); err != nil { // want `err may carry the cancellation of ctx and this branch leaves the loop for a return of a nil error, so pushAll reports success for work that was cut short`
			log.Printf("put %s: %v", k, err)
			break
		}
	}
	return nil
}

// Near miss: the failure is kept and returned after the loop.
func pushKept(ctx context.Context, keys []string) error {
	var err error
	for _, k := range keys {
		if err = store.Put(ctx, k, "v"); err != nil {
			break
		}
	}
	return err
}

// Near miss: the loop's end looks at the context before returning.
func collectChecked(ctx context.Context, prefix string) ([]string, error) {
	var out []string
	for p, err := range scanPairs(ctx, prefix) {
		if err != nil {
			break
		}
		out = append(out, p)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Near miss: the branch records the failure before leaving.
func collectFlagged(ctx context.Context, prefix string) ([]string, bool, error) {
	var out []string
	partial := false
	for p, err := range scanPairs(ctx, prefix) {
		if err != nil {
			partial = true
			break
		}
		out = append(out, p)
	}
	return out, partial, nil
}

// Near miss: a break out of a switch stays in the loop.
func pushSwitch(ctx context.Context, keys []string, mode int) error {
	for _, k := range keys {
		switch mode {
		case 1:
			if err := store.Put(ctx, k, "v"); err != nil {
				return err
			}
		default:
			break
		}
	}
	return nil
}

func receive(ctx context.Context) ([]string, error) { return nil, ctx.Err() }

// drainAll leaves its only way out of the loop on a failed receive.
func drainAll(ctx context.Context) (int, error) {
	n := 0
	for {
		msgs, err := receive(ctx)
		if err != nil { // want `err may carry the cancellation of ctx and this branch leaves the loop for a return of a nil error, so drainAll returns what it gathered`
			break
		}
		if len(msgs) == 0 {
			return n, nil
		}
		n += len(msgs)
	}
	return n, nil
}
