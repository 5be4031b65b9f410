package sim

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// SweepOptions tune Sweep.
type SweepOptions struct {
	// Workers is the number of simulations run at once (default
	// GOMAXPROCS).
	Workers int
	// Progress, if set, is called with the overall fraction done (the mean
	// of every configuration's fraction), serialised, from the workers'
	// goroutines.
	Progress func(frac float64)
}

// Sweep runs independent configurations in parallel and returns their
// reports in input order. Each run is deterministic for its own Config, so
// the results do not depend on the number of workers or on timing. A
// configuration that fails leaves a nil report; the error joins every
// failure, each naming its index. Configurations must not share mutable
// state (hooks, custom workloads) unless it is safe for concurrent use.
func Sweep(cfgs []Config, opt SweepOptions) ([]*Report, error) {
	out := make([]*Report, len(cfgs))
	errs := make([]error, len(cfgs))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(cfgs))
	var mu sync.Mutex
	fracs := make([]float64, len(cfgs))
	report := func(i int, f float64) {
		if opt.Progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fracs[i] = f
		var sum float64
		for _, v := range fracs {
			sum += v
		}
		opt.Progress(sum / float64(len(fracs)))
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				cfg := cfgs[i]
				own := cfg.Progress
				cfg.Progress = func(f float64) {
					if own != nil {
						own(f)
					}
					report(i, f)
				}
				out[i], errs[i] = Simulate(cfg)
				if errs[i] != nil {
					errs[i] = fmt.Errorf("configuration %d: %w", i, errs[i])
				}
				report(i, 1)
			}
		}()
	}
	for i := range cfgs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errors.Join(errs...)
}
