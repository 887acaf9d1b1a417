package retry

import (
	"context"
	"errors"
	"time"
)

// ErrConnectivity marks a failure to reach any server.
var ErrConnectivity = errors.New("connectivity error")

// Record is one result row.
type Record map[string]any

// BoltConn is a borrowed connection.
type BoltConn interface {
	Run(ctx context.Context, cypher string, params map[string]any) ([]Record, error)
}

// ConnPool hands out connections.
type ConnPool interface {
	Borrow(ctx context.Context) (BoltConn, error)
	Return(BoltConn)
}

// retryState tracks a managed transaction's retries.
type retryState struct {
	start     time.Time
	maxTime   time.Duration
	skipSleep bool
	attempt   int
	errs      []error
}

// newRetryState starts the clock.
//
// ok: retrycancel
func newRetryState(maxTime time.Duration) *retryState {
	return &retryState{start: time.Now(), maxTime: maxTime}
}

// Continue reports whether there is retry time left.
//
// ok: retrycancel
func (s *retryState) Continue() bool {
	return s.attempt == 0 || time.Since(s.start) < s.maxTime
}

// OnFailure records err; connectivity errors retry on another server at
// once, without sleeping.
//
// ok: retrycancel
func (s *retryState) OnFailure(err error) {
	s.attempt++
	s.errs = append(s.errs, err)
	s.skipSleep = errors.Is(err, ErrConnectivity)
}

// backoff returns the pause before the next attempt.
//
// ok: retrycancel
func (s *retryState) backoff() time.Duration {
	return min(time.Second<<min(s.attempt, 5), 30*time.Second)
}

// Err joins the collected errors.
//
// ok: retrycancel
func (s *retryState) Err() error {
	return errors.Join(s.errs...)
}

// Driver runs queries against a cluster.
type Driver struct {
	pool         ConnPool
	maxRetryTime time.Duration
}

// ExecuteQuery runs cypher, retrying within maxRetryTime. A failure to get a
// connection is retried straight away; other failures back off first.
//
// From: neo4j/neo4j-go-driver#671
// bug: retrycancel
func (d *Driver) ExecuteQuery(ctx context.Context, cypher string, params map[string]any) ([]Record, error) {
	st := newRetryState(d.maxRetryTime)
	for st.Continue() {
		conn, err := d.pool.Borrow(ctx)
		if err != nil {
			st.OnFailure(errors.Join(ErrConnectivity, err))
			continue
		}
		recs, err := conn.Run(ctx, cypher, params)
		d.pool.Return(conn)
		if err == nil {
			return recs, nil
		}
		st.OnFailure(err)
		if !st.skipSleep {
			if err := sleepCtx(ctx, st.backoff()); err != nil {
				return nil, err
			}
		}
	}
	return nil, st.Err()
}

// ExecuteQueryNearMiss checks the context at the top of every attempt, so
// the no-sleep path cannot spin on a cancelled context.
//
// ok: retrycancel
func (d *Driver) ExecuteQueryNearMiss(ctx context.Context, cypher string, params map[string]any) ([]Record, error) {
	st := newRetryState(d.maxRetryTime)
	for st.Continue() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		conn, err := d.pool.Borrow(ctx)
		if err != nil {
			st.OnFailure(errors.Join(ErrConnectivity, err))
			continue
		}
		recs, err := conn.Run(ctx, cypher, params)
		d.pool.Return(conn)
		if err == nil {
			return recs, nil
		}
		st.OnFailure(err)
		if !st.skipSleep {
			if err := sleepCtx(ctx, st.backoff()); err != nil {
				return nil, err
			}
		}
	}
	return nil, st.Err()
}
