package probe

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
)

type worker struct{ ctx context.Context }

func fetch(ctx context.Context) error { return nil }

func parse() error { return nil }

func direct(ctx context.Context) error {
	return ctx.Err() // want `carrier in direct with contexts \[ctx\]`
}

func handler(w http.ResponseWriter, r *http.Request) error {
	err := fetch(r.Context())
	return err // want `carrier in handler with contexts \[r.Context\(\)\]`
}

func (w *worker) run() error {
	return context.Cause(w.ctx) // want `carrier in run with contexts \[w.ctx\]`
}

func joined(ctx context.Context) error {
	return errors.Join(parse(), fetch(ctx)) // want `carrier in joined`
}

func folded(ctx context.Context) error {
	return fmt.Errorf("x: %v", fetch(ctx))
}

func wrapped(ctx context.Context) error {
	return fmt.Errorf("%[2]s: %[1]w", fetch(ctx), "op") // want `carrier in wrapped`
}

func branches(ctx context.Context, b bool) error {
	err := parse()
	if b {
		err = fetch(ctx)
	}
	return err // want `carrier in branches`
}

func overwritten(ctx context.Context) error {
	err := fetch(ctx)
	if err != nil {
		return nil
	}
	err = parse()
	return err
}

func closure(ctx context.Context) func() error {
	return func() error {
		return fetch(ctx) // want `carrier in function literal with contexts \[ctx\]`
	}
}

func sentinel() error {
	return context.DeadlineExceeded // want `carrier in sentinel`
}

func request(ctx context.Context) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, "GET", "/", nil)
}

func flat(ctx context.Context) error { return ctx.Err() } // want `carrier in flat`

func detachedArg(ctx context.Context) error {
	return flat(context.WithoutCancel(ctx))
}

func detachedVar() error {
	bg := context.WithValue(context.Background(), "k", "v")
	return flat(bg)
}

func timedVar() error {
	ctx, cancel := context.WithTimeout(context.Background(), 1)
	defer cancel()
	return flat(ctx) // want `carrier in timedVar`
}

func selfWrap(ctx context.Context) error {
	err := fetch(ctx)
	err = fmt.Errorf("x: %v", err)
	return err
}

type logHandler struct{}

func (logHandler) Handle(ctx context.Context, r slog.Record) error { return ctx.Err() } // want `carrier in Handle`

func logs(ctx context.Context, h logHandler) error {
	return h.Handle(ctx, slog.Record{})
}

func plainCommand() error {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		return err
	}
	return exec.Command("true").Run()
}

func contextCommand(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, "true")
	return cmd.Run() // want `carrier in contextCommand`
}

// A transaction holds the context it was begun with: db.Begin's is
// Background, so its Commit cannot return a cancellation.
func plainTx(ctx context.Context, db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if _, err := tx.Exec("delete from t"); err != nil {
		return err
	}
	return tx.Commit()
}

func backgroundTx(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	return tx.Commit()
}

func contextTx(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err // want `carrier in contextTx`
	}
	return tx.Commit() // want `carrier in contextTx`
}

func givenTx(ctx context.Context, tx *sql.Tx) error {
	return tx.Commit() // want `carrier in givenTx`
}

func mixedTx(ctx context.Context, db *sql.DB, fresh bool) error {
	tx, err := db.Begin()
	if !fresh {
		tx, err = db.BeginTx(ctx, nil)
	}
	if err != nil {
		return err // want `carrier in mixedTx`
	}
	return tx.Commit() // want `carrier in mixedTx`
}

// A user type holding a context, made with or without one.
type session struct{ ctx context.Context }

func (s *session) do() error { return s.ctx.Err() } // want `carrier in do`

func newSession() *session { return &session{ctx: context.Background()} }

func newSessionCtx(ctx context.Context) *session { return &session{ctx: ctx} }

func (s *session) child() *session { return &session{ctx: s.ctx} }

func plainSession(ctx context.Context) error {
	s := newSession()
	return s.child().do()
}

func contextSession(ctx context.Context) error {
	s := newSessionCtx(ctx)
	return s.child().do() // want `carrier in contextSession`
}

func valueOnly(ctx context.Context, k string) (string, error) {
	if k == "" {
		return "", errors.New("empty")
	}
	slog.InfoContext(ctx, "lookup", "k", k)
	return k, nil
}

func usesValueOnly(ctx context.Context) error {
	_, err := valueOnly(ctx, "k")
	return err
}

func form(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return err
	}
	return r.ParseMultipartForm(1 << 20)
}
