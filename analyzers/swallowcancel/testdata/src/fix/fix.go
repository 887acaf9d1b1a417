package fix

import (
	"context"
	"errors"
	"io"
	"log"

	"rowsdb"
	"store"
)

type item struct{ id string }

func dropAssign(ctx context.Context, k string) (int, error) {
	_ = store.Put(ctx, k, "v") // want `dropped`
	return 1, nil
}

func dropTuple(ctx context.Context, k string) (string, error) {
	v, _ := store.Get(ctx, k) // want `dropped`
	return v, nil
}

func dropBare(ctx context.Context, k string) error {
	store.Put(ctx, k, "v") // want `dropped`
	return nil
}

// A bare call with two results: the fix names the other result _.
func dropBareTuple(ctx context.Context, k string) error {
	store.Get(ctx, k) // want `dropped`
	return nil
}

func loopDrop(ctx context.Context, items []item) (*item, error) {
	for _, it := range items {
		_ = store.Put(ctx, it.id, "v") // want `dropped`
	}
	return nil, nil
}

func loopNoResults(ctx context.Context, items []item) {
	for _, it := range items {
		store.Put(ctx, it.id, "v") // want `dropped`
	}
}

func loopLogged(ctx context.Context, items []item) ([]string, error) {
	var done []string
	for _, it := range items {
		if err := store.Put(ctx, it.id, "v"); err != nil { // want `only logged`
			log.Printf("put %s: %v", it.id, err)
			continue
		}
		done = append(done, it.id)
	}
	return done, nil
}

func nilOnError(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	if err != nil { // want `returns a nil error instead`
		return "", nil
	}
	return v, nil
}

func doneNil(ctx context.Context, ch <-chan int) (int, error) {
	select {
	case <-ctx.Done():
		return 0, nil // want `returns a nil error when ctx is done`
	case v := <-ch:
		return v, nil
	}
}

func errNil(ctx context.Context) error {
	if err := ctx.Err(); err != nil { // want `when err is a cancellation`
		return nil
	}
	return nil
}

func loggedOnly(ctx context.Context, k string) (int, error) {
	if err := store.Put(ctx, k, "v"); err != nil { // want `only logged`
		log.Printf("put: %v", err)
	}
	return 1, nil
}

func drain(ctx context.Context, ch <-chan int) (int, error) {
	n := 0
loop:
	for {
		select {
		case <-ctx.Done():
			break loop // want `leaves the loop`
		case v := <-ch:
			n += v
		}
	}
	return n, nil
}

func voidDrop(ctx context.Context, k string) {
	store.Put(ctx, k, "v") // want `goes on as if the call succeeded`
	log.Println("stored", k)
}

func clears(ctx context.Context) error {
	err := store.Put(ctx, "k", "v")
	if errors.Is(err, context.Canceled) { // want `sets it to nil`
		err = nil
	}
	return err
}

var errKeep = errors.New("keeps the errors import in use")

var errGone = errors.New("gone")

func getCase(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, errGone), errors.Is(err, context.Canceled): // want `when err is a cancellation this branch returns a nil error`
		return "", nil
	}
	return "", err
}

func getTagged(ctx context.Context, k string) error {
	_, err := store.Get(ctx, k)
	switch err {
	case context.Canceled: // want `when err is a cancellation this branch returns a nil error`
		return nil
	}
	return err
}

func rowNames(ctx context.Context, db *rowsdb.DB) ([]string, error) {
	rows, err := db.Query(ctx, "q")
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() { // want `rows.Err\(\) is never checked`
		out = append(out, "")
	}
	return out, nil
}

// The label has another use, a plain break on an error: it stays, and so
// does the return after the loop.
func drainOrFail(ctx context.Context, ch <-chan int) (int, error) {
	n := 0
loop:
	for {
		select {
		case <-ctx.Done():
			break loop // want `leaves the loop`
		case v, ok := <-ch:
			if !ok {
				break loop
			}
			n += v
		}
	}
	return n, nil
}

// A goroutine literal: the suite's untrackedgo fix may give it an error
// result, so the fix breaks out of the loop, its last statement, rather
// than insert a bare return.
func putAsync(ctx context.Context, ks []string) {
	go func() {
		for i := 0; i < len(ks); i++ {
			k := ks[i]
			if err := store.Put(ctx, k, "v"); err != nil { // want `only logged`
				log.Printf("put %s: %v", k, err)
			}
		}
	}()
}

// Near-miss: Err is read in an if statement's init.
func rowNamesChecked(ctx context.Context, db *rowsdb.DB) ([]string, error) {
	rows, err := db.Query(ctx, "q")
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		out = append(out, "")
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Near-miss: the skipping branch stops the loop once ctx has ended.
func skipStops(ctx context.Context, keys []string) error {
	for _, k := range keys {
		err := store.Put(ctx, k, "v")
		if errors.Is(err, context.Canceled) {
			if err := ctx.Err(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Two Done clauses, one in a nested select, leave by the label: both
// become returns, and the label goes.
func drainTwo(ctx context.Context, ch, more <-chan int) (int, error) {
	n := 0
loop:
	for {
		select {
		case <-ctx.Done():
			break loop // want `leaves the loop`
		case v := <-ch:
			select {
			case <-ctx.Done():
				break loop // want `leaves the loop`
			case w := <-more:
				n += v + w
			}
		}
	}
	return n, nil
}

// Near-miss for the break fix: work follows the loop, so a break would not
// end the goroutine; no fix.
func putAsyncThenLog(ctx context.Context, ks []string) {
	go func() {
		for i := 0; i < len(ks); i++ {
			k := ks[i]
			if err := store.Put(ctx, k, "v"); err != nil { // want `only logged`
				log.Printf("put %s: %v", k, err)
			}
		}
		log.Println("done")
	}()
}

func exportKeys(ctx context.Context, ks []string, w io.WriteCloser) (err error) {
	defer func() {
		err = w.Close() // want `this deferred function overwrites err`
	}()
	for _, k := range ks {
		if err = store.Put(ctx, k, "v"); err != nil {
			return err
		}
	}
	return nil
}

func filteredGet(ctx context.Context, k string) (string, error) {
	v, err := store.Get(ctx, k)
	if err != nil && !errors.Is(err, context.Canceled) { // want `lets it past the failure branch`
		return "", err
	}
	return v + "!", nil
}

func walkKeys(ctx context.Context, keys []string) func(yield func(string, error) bool) {
	return func(yield func(string, error) bool) {
		for _, k := range keys {
			if !yield(k, ctx.Err()) {
				return
			}
		}
	}
}

func countKeys(ctx context.Context, keys []string) (int, error) {
	n := 0
	for k, err := range walkKeys(ctx, keys) {
		if err != nil { // want `yielded by walkKeys`
			log.Printf("skip %s: %v", k, err)
			continue
		}
		n++
	}
	return n, nil
}
