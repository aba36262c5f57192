package tree

import "sync"

// Workers is the copy parallelism: enough to overlap the per-file latency
// of small files (open, create, close), bounded for memory and descriptors.
const Workers = 8

// Pool runs fn over n jobs with a bounded number of workers and returns the
// first error; after an error no new jobs start.
func Pool(n, workers int, fn func(i int) error) error {
	if workers > n {
		workers = n
	}
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
