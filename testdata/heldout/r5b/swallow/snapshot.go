// Package swallow holds swallowed-cancellation cases: errors that can carry
// context.Canceled being dropped, nil-ed or logged past.
package swallow

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"

	"heldoutr5b/internal/store"
)

// ExportSnapshot writes "key=value" lines for keys to w and closes w.
// The deferred Close assigns its own result over the named error, so a Get
// that failed with context.Canceled half-way through is replaced by Close's
// nil and the caller ships a truncated snapshot as if it were complete.
// From: element-hq/dendrite#846
// bug: swallowcancel
func ExportSnapshot(ctx context.Context, c *store.Client, keys []string, w io.WriteCloser) (err error) {
	defer func() {
		err = w.Close()
	}()
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		var v []byte
		v, err = c.Get(ctx, k)
		if err != nil {
			return fmt.Errorf("export %s: %w", k, err)
		}
		if _, err = fmt.Fprintf(bw, "%s=%s\n", k, v); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ExportSnapshotKeepFirst is ExportSnapshot with the usual fix: the deferred
// Close only reports its error when nothing failed before it, so a
// cancellation from Get still reaches the caller.
// ok: swallowcancel
func ExportSnapshotKeepFirst(ctx context.Context, c *store.Client, keys []string, w io.WriteCloser) (err error) {
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriter(w)
	for _, k := range keys {
		var v []byte
		v, err = c.Get(ctx, k)
		if err != nil {
			return fmt.Errorf("export %s: %w", k, err)
		}
		if _, err = fmt.Fprintf(bw, "%s=%s\n", k, v); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Step is one migration step.
type Step struct {
	Name  string
	Key   string
	Value []byte
}

// Migrator applies schema steps to a store.
type Migrator struct {
	c     *store.Client
	log   *log.Logger
	steps []Step
}

// NewMigrator returns a migrator for steps.
// ok: swallowcancel
func NewMigrator(c *store.Client, l *log.Logger, steps []Step) *Migrator {
	return &Migrator{c: c, log: l, steps: steps}
}

// Apply runs every step and records the new version. Its deferred closure
// turns an interrupted run into success, so the deploy job that called it
// proceeds to start the new binary against a half-migrated store.
// From: runreveal/kawa#37
// bug: swallowcancel
func (m *Migrator) Apply(ctx context.Context) (err error) {
	defer func() {
		if errors.Is(err, context.Canceled) {
			m.log.Printf("migration interrupted; it resumes on next start")
			err = nil
		}
	}()
	for _, s := range m.steps {
		if err = m.c.Put(ctx, s.Key, s.Value); err != nil {
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		if err = m.c.Put(ctx, "migrations/"+s.Name, []byte("done")); err != nil {
			return fmt.Errorf("record step %s: %w", s.Name, err)
		}
	}
	return m.c.Put(ctx, "migrations/version", []byte(strconv.Itoa(len(m.steps))))
}

// ApplyReporting has the same deferred closure, but it only logs the
// interruption and leaves the named error alone, so the deploy job sees
// context.Canceled and stops.
// ok: swallowcancel
func (m *Migrator) ApplyReporting(ctx context.Context) (err error) {
	defer func() {
		if errors.Is(err, context.Canceled) {
			m.log.Printf("migration interrupted; it resumes on next start")
		}
	}()
	for _, s := range m.steps {
		if err = m.c.Put(ctx, s.Key, s.Value); err != nil {
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		if err = m.c.Put(ctx, "migrations/"+s.Name, []byte("done")); err != nil {
			return fmt.Errorf("record step %s: %w", s.Name, err)
		}
	}
	return m.c.Put(ctx, "migrations/version", []byte(strconv.Itoa(len(m.steps))))
}

// Ledger sums account entries and archives period reports.
type Ledger struct {
	c       *store.Client
	archive io.Writer
}

// NewLedger returns a ledger archiving to w.
// ok: swallowcancel
func NewLedger(c *store.Client, w io.Writer) *Ledger {
	return &Ledger{c: c, archive: w}
}

// sumEntries adds up the numeric values under entries/<period>/.
// ok: swallowcancel
func (l *Ledger) sumEntries(ctx context.Context, period string) (int64, error) {
	var total int64
	for r, err := range l.c.Scan(ctx, "entries/"+period+"/") {
		if err != nil {
			return total, err
		}
		n, perr := strconv.ParseInt(string(r.Value), 10, 64)
		if perr != nil {
			return total, fmt.Errorf("entry %s: %w", r.Key, perr)
		}
		total += n
	}
	return total, nil
}

// ClosePeriod archives the period total. The error from sumEntries is a
// dead store: the archive Write overwrites it before anyone looks, so a
// canceled sum archives a partial total as the closing balance.
// From: OpenBazaar/openbazaar-go#493
// bug: swallowcancel
func (l *Ledger) ClosePeriod(ctx context.Context, period string) error {
	total, err := l.sumEntries(ctx, period)
	line := fmt.Sprintf("period=%s total=%d\n", period, total)
	_, err = io.WriteString(l.archive, line)
	if err != nil {
		return fmt.Errorf("archive %s: %w", period, err)
	}
	return nil
}

// ClosePeriodChecked checks the sum's error before archiving anything.
// ok: swallowcancel
func (l *Ledger) ClosePeriodChecked(ctx context.Context, period string) error {
	total, err := l.sumEntries(ctx, period)
	if err != nil {
		return fmt.Errorf("sum %s: %w", period, err)
	}
	line := fmt.Sprintf("period=%s total=%d\n", period, total)
	_, err = io.WriteString(l.archive, line)
	if err != nil {
		return fmt.Errorf("archive %s: %w", period, err)
	}
	return nil
}

// ignoreNotFound maps the store's not-found error to nil and passes every
// other error, cancellation included, through unchanged.
// ok: swallowcancel
func ignoreNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// PurgeSession deletes a session's token if one exists. The nil-looking
// return goes through ignoreNotFound, which keeps context errors intact.
// ok: swallowcancel
func PurgeSession(ctx context.Context, c *store.Client, id string) error {
	if _, err := c.Get(ctx, "sessions/"+id); err != nil {
		return ignoreNotFound(err)
	}
	return c.Delete(ctx, "sessions/"+id)
}
