package untracked

import (
	"context"
	"net/http"
	"time"
)

// The server goroutine's error is received, or the server is shut down and
// its ListenAndServe returns; the result slot is buffered.
//
// ok: untrackedgo
func Serve(ctx context.Context, srv *http.Server) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	return <-errc
}
