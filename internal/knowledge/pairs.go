package knowledge

// ReceiverPairs maps the name of a method that takes something from its
// receiver to the name of the method that gives it back, on the same
// receiver: a user type's semaphore, lock, pin or reference count
// (sem.Acquire() ... sem.Release()). A function that calls both on one
// receiver holds the pair on every path (leaseleak).
var ReceiverPairs = map[string]string{
	"Acquire":    "Release",
	"TryAcquire": "Release",
	"Lock":       "Unlock",
	"TryLock":    "Unlock",
	"RLock":      "RUnlock",
	"TryRLock":   "RUnlock",
	"Retain":     "Release",
	"IncRef":     "DecRef",
	"Ref":        "Unref",
	"Pin":        "Unpin",
}
