package retry

import (
	"math"
	"time"
)

// Defaults used for the zero fields of a [Policy].
const (
	DefaultMaxAttempts = 5
	DefaultInitial     = 100 * time.Millisecond
	DefaultMax         = 10 * time.Second
	DefaultMultiplier  = 2.0
	DefaultJitter      = 0.2
)

// A Policy says how often and how long [Do] retries. The zero Policy is
// valid: up to [DefaultMaxAttempts] attempts, delays starting at
// [DefaultInitial] and doubling up to [DefaultMax], each shortened by up
// to [DefaultJitter] of itself, with no elapsed-time budget and no
// per-attempt timeout. A Policy is a value; Do never modifies it.
type Policy struct {
	// MaxAttempts is the most attempts Do makes, counting the first.
	// Zero or negative means DefaultMaxAttempts. Use 1 to disable retries.
	MaxAttempts int

	// MaxElapsed, if positive, bounds the time from the start of the first
	// attempt to the start of the last: Do does not begin a delay that
	// would end later than that. It does not interrupt a running attempt;
	// give the context a deadline for that.
	MaxElapsed time.Duration

	// Initial is the delay after the first failure. Zero or negative
	// means DefaultInitial. It is capped at Max.
	Initial time.Duration

	// Max caps every delay. Zero or negative means DefaultMax.
	Max time.Duration

	// Multiplier grows the delay after each failure. Values below 1, NaN
	// and infinities mean DefaultMultiplier. 1 gives a constant delay.
	Multiplier float64

	// Jitter is the largest fraction of a delay removed at random, so that
	// clients that failed together do not retry together. Zero or NaN
	// means DefaultJitter; a negative value disables jitter; values above
	// 1 mean 1.
	Jitter float64

	// PerAttempt, if positive, is a timeout for each attempt, applied to a
	// context derived from the one passed to Do. An attempt that runs out
	// of it is retried like any failure.
	PerAttempt time.Duration

	// Rand returns pseudo-random numbers in [0, 1) for jitter. Nil means
	// the goroutine-safe source of math/rand. Values outside [0, 1) are
	// clamped.
	Rand func() float64
}

func (p Policy) maxAttempts() int {
	if p.MaxAttempts <= 0 {
		return DefaultMaxAttempts
	}
	return p.MaxAttempts
}

// bounds returns the effective Initial, Max and Multiplier.
func (p Policy) bounds() (initial, max time.Duration, mult float64) {
	initial, max, mult = p.Initial, p.Max, p.Multiplier
	if max <= 0 {
		max = DefaultMax
	}
	if initial <= 0 {
		initial = DefaultInitial
	}
	if initial > max {
		initial = max
	}
	if !(mult >= 1) || math.IsInf(mult, 1) {
		mult = DefaultMultiplier
	}
	return initial, max, mult
}

func (p Policy) jitter() float64 {
	j := p.Jitter
	switch {
	case j == 0 || math.IsNaN(j):
		return DefaultJitter
	case j < 0:
		return 0
	case j > 1:
		return 1
	}
	return j
}

// Backoff returns the delay after failed attempt number attempt (counting
// from 1) before jitter: Initial × Multiplier^(attempt−1), capped at Max.
// An attempt below 1 counts as 1. The result is positive, at most Max,
// and never decreases as attempt grows.
func (p Policy) Backoff(attempt int) time.Duration {
	initial, max, mult := p.bounds()
	if attempt <= 1 {
		return initial
	}
	f := float64(initial) * math.Pow(mult, float64(attempt-1))
	// f is finite or +Inf here, never NaN: initial > 0 and mult >= 1.
	if !(f < float64(max)) {
		return max
	}
	return time.Duration(f)
}

// Delay returns the delay after failed attempt number attempt: the
// [Policy.Backoff] minus a random share of up to Jitter of it, using rnd
// (or p.Rand, or math/rand, when nil) for the randomness. The result is
// never negative and never above Max.
func (p Policy) Delay(attempt int, rnd func() float64) time.Duration {
	d := p.Backoff(attempt)
	j := p.jitter()
	if j == 0 {
		return d
	}
	if rnd == nil {
		rnd = p.random()
	}
	r := rnd()
	if !(r > 0) { // also NaN
		return d
	}
	if r > 1 {
		r = 1
	}
	cut := float64(d) * j * r
	if !(cut < float64(d)) {
		return 0
	}
	return d - time.Duration(cut)
}
