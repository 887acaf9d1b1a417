package api

import "store"

// Close calls a carrier from another package: the fact crosses the boundary.
func Close(s *store.Store) error { // want Close:"carriesCancel"
	return s.Flush()
}

func Check(s *store.Store) error {
	return s.Describe()
}
