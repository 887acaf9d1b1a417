package main

import (
	"context"
	"net/http"
	"os"
	"os/signal"
)

func run(ctx context.Context) {}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	srv := &http.Server{}
	go srv.ListenAndServe()
	go run(ctx)
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt)
	go func() {
		<-sigc
		os.Exit(1)
	}()
	for _, p := range []string{"a", "b"} {
		go func() { _ = p }()
	}
	<-ctx.Done()
}
