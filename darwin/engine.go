// Package darwin is RAMBar's engine for darwin. (Skeleton: being built.)
package darwin

import (
	"context"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// Engine is the darwin engine.
type Engine struct{ r run.Runner }

var _ ramdisk.Engine = (*Engine)(nil)

// New returns an engine that runs tools through r.
func New(r run.Runner) *Engine { return &Engine{r: r} }

// Caps implements ramdisk.Engine.
func (e *Engine) Caps() ramdisk.Caps { return ramdisk.Caps{OS: "darwin"} }

// Create implements ramdisk.Engine.
func (e *Engine) Create(ctx context.Context, p ramdisk.Plan) (ramdisk.Volume, error) {
	return ramdisk.Volume{}, ramdisk.ErrUnsupported
}

// List implements ramdisk.Engine.
func (e *Engine) List(ctx context.Context) ([]ramdisk.Volume, error) { return nil, nil }

// Eject implements ramdisk.Engine.
func (e *Engine) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	return ramdisk.ErrUnsupported
}

// Usage implements ramdisk.Engine.
func (e *Engine) Usage(ctx context.Context, v ramdisk.Volume) (ramdisk.Usage, error) {
	return ramdisk.Usage{}, ramdisk.ErrUnsupported
}

// Memory implements ramdisk.Engine.
func (e *Engine) Memory(ctx context.Context) (ramdisk.Memory, error) {
	return ramdisk.Memory{}, ramdisk.ErrUnsupported
}
