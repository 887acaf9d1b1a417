package lease

import (
	"context"
	"database/sql"
	"fmt"
)

// Contact is an address-book entry.
type Contact struct {
	PublicKey string
	Name      string
}

// ContactStore persists contacts.
type ContactStore struct {
	db *sql.DB
}

// SaveAll upserts contacts through a prepared statement that is never
// closed, neither on the error return nor after the loop.
// From: status-im/status-go#6727
// bug: leaseleak
func (s *ContactStore) SaveAll(ctx context.Context, contacts []Contact) error {
	stmt, err := s.db.PrepareContext(ctx, "INSERT OR REPLACE INTO contacts(public_key, name) VALUES(?, ?)")
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	for _, c := range contacts {
		if _, err := stmt.ExecContext(ctx, c.PublicKey, c.Name); err != nil {
			return fmt.Errorf("save %s: %w", c.PublicKey, err)
		}
	}
	return nil
}

// SaveAllNearMiss closes the statement when done.
// ok: leaseleak
func (s *ContactStore) SaveAllNearMiss(ctx context.Context, contacts []Contact) error {
	stmt, err := s.db.PrepareContext(ctx, "INSERT OR REPLACE INTO contacts(public_key, name) VALUES(?, ?)")
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	for _, c := range contacts {
		if _, err := stmt.ExecContext(ctx, c.PublicKey, c.Name); err != nil {
			return fmt.Errorf("save %s: %w", c.PublicKey, err)
		}
	}
	return nil
}
