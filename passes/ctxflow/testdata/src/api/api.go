package api

import (
	"context"

	"store"
)

// Close calls a carrier from another package: the fact crosses the boundary.
func Close(s *store.Store) error { // want Close:"carriesCancel"
	return s.Flush()
}

func Check(s *store.Store) error {
	return s.Describe()
}

func Config(ctx context.Context) error { // want Config:"noCancel"
	_, err := store.ReadConfig(ctx, "x")
	return err
}

func Serial(ctx context.Context) error { // want Serial:"noCancel"
	_, err := store.Serial(ctx)
	return err
}
