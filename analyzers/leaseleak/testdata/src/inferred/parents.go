package inferred

import "errors"

type channel struct{}

func (*channel) Close() error       { return nil }
func (*channel) Start(string) error { return errors.New("x") }
func (*channel) Wait() error        { return nil }

type client struct{}

func (*client) Close() error                  { return nil }
func (*client) NewChannel() (*channel, error) { return &channel{}, nil }

// Near-miss: the client's deferred Close ends the channels it made, on
// every return after it.
func runCommand(c *client, cmd string) error {
	defer c.Close()
	ch, err := c.NewChannel()
	if err != nil {
		return err
	}
	if err := ch.Start(cmd); err != nil {
		return err
	}
	err = ch.Wait()
	ch.Close()
	return err
}

type signedData struct{}

func (*signedData) AddSigner() error              { return nil }
func (*signedData) Finish() ([]byte, error)       { return nil, nil }
func newSignedData(b []byte) (*signedData, error) { return &signedData{}, nil }

// Near-miss: Finish returns the bytes it produced: a serializer, not a
// release; skipping it on a failure leaks nothing.
func sign(b []byte) ([]byte, error) {
	sd, err := newSignedData(b)
	if err != nil {
		return nil, err
	}
	if err := sd.AddSigner(); err != nil {
		return nil, err
	}
	out, err := sd.Finish()
	return out, err
}
