package untracked

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
)

// AccessRequest is a pending access request.
type AccessRequest struct {
	ID    string
	User  string
	Roles []string
}

// ChatAPI posts to the chat service.
type ChatAPI interface {
	PostMessage(ctx context.Context, req AccessRequest) error
	UpdateMessage(ctx context.Context, id, state string) error
}

// SlackBot forwards access requests to chat.
type SlackBot struct {
	api  ChatAPI
	srv  *http.Server
	jobs sync.WaitGroup
	log  *slog.Logger
}

// spawn runs fn as a job that Shutdown waits for.
//
// ok: untrackedgo
func (b *SlackBot) spawn(ctx context.Context, fn func(context.Context)) {
	b.jobs.Add(1)
	go func() {
		defer b.jobs.Done()
		fn(ctx)
	}()
}

// OnRequestResolved updates the chat message for a resolved request.
//
// ok: untrackedgo
func (b *SlackBot) OnRequestResolved(ctx context.Context, id, state string) {
	b.spawn(ctx, func(ctx context.Context) {
		if err := b.api.UpdateMessage(ctx, id, state); err != nil {
			b.log.Warn("update message failed", "id", id, "err", err)
		}
	})
}

// OnAccessRequest posts a new request to chat without holding up the
// watcher.
//
// From: gravitational/teleport-plugins#53
// bug: untrackedgo
func (b *SlackBot) OnAccessRequest(ctx context.Context, req AccessRequest) {
	go func() {
		if err := b.api.PostMessage(ctx, req); err != nil {
			b.log.Warn("post message failed", "id", req.ID, "err", err)
		}
	}()
}

// OnAccessRequestNearMiss runs the post as a tracked job.
//
// ok: untrackedgo
func (b *SlackBot) OnAccessRequestNearMiss(ctx context.Context, req AccessRequest) {
	b.spawn(ctx, func(ctx context.Context) {
		if err := b.api.PostMessage(ctx, req); err != nil {
			b.log.Warn("post message failed", "id", req.ID, "err", err)
		}
	})
}

// Shutdown stops the callback server and waits for outstanding jobs.
//
// ok: untrackedgo
func (b *SlackBot) Shutdown(ctx context.Context) error {
	err := b.srv.Shutdown(ctx)
	b.jobs.Wait()
	return err
}
