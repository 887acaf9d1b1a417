package swallow

import (
	"context"
	"database/sql"
)

// MsgKind says what a gossip message carries.
type MsgKind int

// Message kinds.
const (
	KindChannel MsgKind = iota
	KindPeer
)

// Gossip is one message from the overlay network.
type Gossip struct {
	Kind    MsgKind
	Channel string
	Peer    string
}

// Execer is the subset of *sql.DB the node uses.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Node stores gossip in its local database.
type Node struct {
	db       Execer
	lastPeer int64
}

// Persist writes a gossip message. In the peer branch the result and the
// error are declared with :=, so the outer err checked below stays nil.
// From: awgh/ratnet#23
// bug: swallowcancel
func (n *Node) Persist(ctx context.Context, g Gossip) error {
	var err error
	switch g.Kind {
	case KindChannel:
		_, err = n.db.ExecContext(ctx, "INSERT INTO channels(name) VALUES(?)", g.Channel)
	case KindPeer:
		res, err := n.db.ExecContext(ctx, "INSERT INTO peers(addr) VALUES(?)", g.Peer)
		if err == nil {
			n.lastPeer, _ = res.LastInsertId()
		}
	}
	if err != nil {
		return err
	}
	return nil
}

// PersistNearMiss assigns the peer insert's error to the outer err.
// ok: swallowcancel
func (n *Node) PersistNearMiss(ctx context.Context, g Gossip) error {
	var err error
	switch g.Kind {
	case KindChannel:
		_, err = n.db.ExecContext(ctx, "INSERT INTO channels(name) VALUES(?)", g.Channel)
	case KindPeer:
		var res sql.Result
		res, err = n.db.ExecContext(ctx, "INSERT INTO peers(addr) VALUES(?)", g.Peer)
		if err == nil {
			n.lastPeer, _ = res.LastInsertId()
		}
	}
	if err != nil {
		return err
	}
	return nil
}
