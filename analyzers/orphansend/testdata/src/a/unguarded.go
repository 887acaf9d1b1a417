package a

import (
	"context"
	"errors"
)

type socket interface {
	ReadMessage() ([]byte, error)
}

type wsConn struct {
	ws          socket
	frames      chan []byte
	closeNotify chan bool
	errs        chan error
	cancel      context.CancelFunc
}

func newWSConn(ws socket) *wsConn {
	return &wsConn{ws: ws, frames: make(chan []byte), closeNotify: make(chan bool), errs: make(chan error, 1)}
}

// readLoop gives up its frame sends when ctx ends, but not the close
// notice: the handler that stopped selecting leaves it blocked.
func (w *wsConn) readLoop(ctx context.Context) {
	for {
		msg, err := w.ws.ReadMessage()
		if err != nil {
			w.closeNotify <- true // want `this send on w.closeNotify waits for a receiver with no way out, though readLoop gives up its send on w.frames when ctx is done`
			return
		}
		select {
		case w.frames <- msg:
		case <-ctx.Done():
			return
		}
	}
}

// Near-miss: the close notice is given up too.
func (w *wsConn) readLoopGuarded(ctx context.Context) {
	for {
		msg, err := w.ws.ReadMessage()
		if err != nil {
			select {
			case w.closeNotify <- true:
			case <-ctx.Done():
			}
			return
		}
		select {
		case w.frames <- msg:
		case <-ctx.Done():
			return
		}
	}
}

// Near-miss: errs is made with a buffer that holds the one error.
func (w *wsConn) readLoopBuffered(ctx context.Context) {
	for {
		msg, err := w.ws.ReadMessage()
		if err != nil {
			w.errs <- err
			return
		}
		select {
		case w.frames <- msg:
		case <-ctx.Done():
			return
		}
	}
}

// Near-miss: no send of the function is given up on the context: nothing
// says the receiver may stop.
func (w *wsConn) pump(ctx context.Context) error {
	for {
		msg, err := w.ws.ReadMessage()
		if err != nil {
			return errors.Join(err, ctx.Err())
		}
		w.frames <- msg
	}
}
