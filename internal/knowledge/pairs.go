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

// RemoteReleasePrefixes are the name prefixes of methods that give back,
// over the network, something a context-bound call took (a distributed
// lock's Unlock(ctx), a machine lease's ReleaseLease(ctx, id), an etcd
// lease's Revoke(ctx, id)): given a context that has ended, such a release
// fails at once and what it should give back stays held until it expires
// (leaseleak).
var RemoteReleasePrefixes = []string{"Release", "Unlock", "Revoke"}
