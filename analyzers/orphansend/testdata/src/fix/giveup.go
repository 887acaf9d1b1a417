package fix

type listener struct {
	events chan string
	gone   chan struct{}
}

func (l *listener) leave() { close(l.gone) }

func (l *listener) Events() <-chan string { return l.events }

func notify(ls []*listener, ev string) {
	for _, l := range ls {
		l.events <- ev // want `this send on l.events waits for a reader with no way out`
	}
}
