package tray

import (
	"context"
	"errors"

	"rambar/ramdisk"
)

// benchmark runs Benchmark This Disk, showing its progress in the menu,
// then its table in a window that offers the chart.
func (c *Controller) benchmark(disk *diskState) {
	if c.d.Benchmark == nil {
		return
	}
	var res BenchmarkResult // written by the job, read after it posts
	c.runHook(disk, opBenchmarking, func(ctx context.Context, v ramdisk.Volume, p ProgressFunc) (string, error) {
		var err error
		res, err = c.d.Benchmark(ctx, v, p)
		return "", err
	}, func(d *diskState, _ string) { c.showBenchmark(d.Volume.Name, res) })
}

// showBenchmark shows a benchmark's table (a notification of its headline
// when there are no windows) and opens the chart when asked to.
func (c *Controller) showBenchmark(name string, res BenchmarkResult) {
	title := c.p.T("Benchmark of %s", name)
	if c.d.Dialogs == nil {
		c.notify(title, res.Headline)
		return
	}
	text, action := res.Table, ""
	if res.Chart != "" {
		text += "\n" + c.p.T("Chart: %s", res.Chart) + "\n"
		action = c.p.T("Open Chart")
	}
	c.goJob(func(ctx context.Context) {
		acted, err := c.d.Dialogs.Result(ctx, title, text, action)
		c.post(func() {
			switch {
			case err != nil && !errors.Is(err, ramdisk.ErrCancelled):
				c.notify(c.p.T("Can't show the benchmark of %s", name), short(c.p, err))
			case acted:
				c.open(c.p.T("the chart"), res.Chart)
			}
		})
	})
}
