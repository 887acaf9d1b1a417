// Package deadline carries a context's deadline across a process boundary,
// in the manner of gRPC's grpc-timeout header.
//
// The sender writes the time remaining, not the absolute deadline, so the
// two machines need not agree on the time of day: [Inject] (or
// [Transport]) puts it in the [Header] of an outgoing request, and
// [Extract] (or [Handler]) turns it back into a deadline on the receiving
// side, measured from when the request arrived. The receiver thus gives up
// no later than the sender, give or take the time the request spent in
// transit.
//
// The value is an integer of at most 8 digits followed by a unit letter:
// H (hours), M (minutes), S (seconds), m (milliseconds), u (microseconds)
// or n (nanoseconds), as in "1500000u". [Format] picks the finest unit
// that fits.
//
// # Rejected designs
//
// gRPC rounds the remaining time up when a coarser unit loses precision;
// [Format] rounds down instead, so the receiver never waits longer than the
// sender will. Sending an absolute time was rejected because it depends on
// synchronized clocks. [Parse] rejects values that overflow
// [time.Duration] instead of clamping them to "forever".
package deadline
