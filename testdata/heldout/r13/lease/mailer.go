package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

var errNoTranslation = errors.New("missing translation")

// Mail is one queued notification.
type Mail struct {
	To     string
	Locale string
	Key    string
}

// Transport sends a rendered mail.
type Transport interface {
	Send(ctx context.Context, to, body string) error
}

// Mailer renders templates from a shared catalog guarded by a mutex.
type Mailer struct {
	mu        sync.Mutex
	catalog   map[string]map[string]string
	transport Transport
}

// SendAll renders and sends each mail. The missing-translation return
// sits between Lock and Unlock, so the catalog stays locked and every
// later mail blocks.
// From: linagora/cozy-stack#1457
// bug: leaseleak
func (m *Mailer) SendAll(ctx context.Context, mails []Mail) error {
	for _, ml := range mails {
		m.mu.Lock()
		tmpl, ok := m.catalog[ml.Locale][ml.Key]
		if !ok {
			return fmt.Errorf("%s/%s: %w", ml.Locale, ml.Key, errNoTranslation)
		}
		body := tmpl
		m.mu.Unlock()
		if err := m.transport.Send(ctx, ml.To, body); err != nil {
			return fmt.Errorf("send to %s: %w", ml.To, err)
		}
	}
	return nil
}

// SendAllNearMiss looks the template up in a helper that defers Unlock.
// ok: leaseleak
func (m *Mailer) SendAllNearMiss(ctx context.Context, mails []Mail) error {
	for _, ml := range mails {
		body, err := m.lookup(ml.Locale, ml.Key)
		if err != nil {
			return err
		}
		if err := m.transport.Send(ctx, ml.To, body); err != nil {
			return fmt.Errorf("send to %s: %w", ml.To, err)
		}
	}
	return nil
}

// lookup returns a template under the catalog lock.
// ok: leaseleak
func (m *Mailer) lookup(locale, key string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tmpl, ok := m.catalog[locale][key]
	if !ok {
		return "", fmt.Errorf("%s/%s: %w", locale, key, errNoTranslation)
	}
	return tmpl, nil
}
