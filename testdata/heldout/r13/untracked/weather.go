package untracked

import "context"

// WeatherProvider reports a temperature in Kelvin for a city.
type WeatherProvider interface {
	Temperature(ctx context.Context, city string) (float64, error)
}

// MultiProvider averages several providers.
type MultiProvider []WeatherProvider

// Temperature queries all providers in parallel and returns on the first
// error, abandoning the goroutines that are still querying.
// From: peterbourgon/how-i-start-go#7
// bug: untrackedgo
func (m MultiProvider) Temperature(ctx context.Context, city string) (float64, error) {
	temps := make(chan float64, len(m))
	errs := make(chan error, len(m))
	for _, p := range m {
		go func() {
			k, err := p.Temperature(ctx, city)
			if err != nil {
				errs <- err
				return
			}
			temps <- k
		}()
	}
	sum := 0.0
	for range m {
		select {
		case k := <-temps:
			sum += k
		case err := <-errs:
			return 0, err
		}
	}
	return sum / float64(len(m)), nil
}

// TemperatureNearMiss cancels the remaining queries on error and still
// collects every goroutine's result before returning.
// ok: untrackedgo
func (m MultiProvider) TemperatureNearMiss(ctx context.Context, city string) (float64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	temps := make(chan float64, len(m))
	errs := make(chan error, len(m))
	for _, p := range m {
		go func() {
			k, err := p.Temperature(ctx, city)
			if err != nil {
				errs <- err
				return
			}
			temps <- k
		}()
	}
	sum := 0.0
	var firstErr error
	for range m {
		select {
		case k := <-temps:
			sum += k
		case err := <-errs:
			if firstErr == nil {
				firstErr = err
				cancel()
			}
		}
	}
	if firstErr != nil {
		return 0, firstErr
	}
	return sum / float64(len(m)), nil
}
