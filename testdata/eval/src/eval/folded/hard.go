package folded

import (
	"context"
	"errors"
	"fmt"
	"log"
)

// read wraps the backend; its error carries cancellation.
//
// ok: foldedtimeout
func (c *Client) read(ctx context.Context, key string) (Record, error) {
	return c.be.Read(ctx, key)
}

type Job struct {
	Key string
	Err error
}

// The formatted error is stored on the job, where callers inspect it.
//
// bug: foldedtimeout
func (c *Client) RunJob(ctx context.Context, j *Job) {
	if _, err := c.read(ctx, j.Key); err != nil {
		j.Err = fmt.Errorf("job %s: %v", j.Key, err)
	}
}

// Arguments of errors.Is swapped: never true for a wrapped error.
//
// bug: foldedtimeout
func (c *Client) ShouldRetry(ctx context.Context, key string) bool {
	_, err := c.read(ctx, key)
	return err != nil && !errors.Is(context.Canceled, err)
}

// err.Error() passed through %s.
//
// bug: foldedtimeout
func (c *Client) Sync(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if _, err := c.read(ctx, k); err != nil {
			return fmt.Errorf("sync %s: %s", k, err.Error())
		}
	}
	return nil
}

// ok: foldedtimeout
func (c *Client) RunJobOK(ctx context.Context, j *Job) {
	if _, err := c.read(ctx, j.Key); err != nil {
		j.Err = fmt.Errorf("job %s: %w", j.Key, err)
	}
}

// A formatted error that is only logged loses nothing.
//
// ok: foldedtimeout
func (c *Client) Audit(ctx context.Context, key string) {
	if _, err := c.read(ctx, key); err != nil {
		log.Print(fmt.Errorf("audit %s: %v", key, err))
	}
}

// ok: foldedtimeout
func (c *Client) ShouldRetryOK(ctx context.Context, key string) bool {
	_, err := c.read(ctx, key)
	return err != nil && !errors.Is(err, context.Canceled)
}
