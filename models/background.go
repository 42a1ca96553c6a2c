package models

import "context"

// backgroundWork marks the context of work no request waits on.
type backgroundWork struct{}

// AsBackground marks ctx as background work (the key-event sync, the
// last-use flush, the scheduler, the catalog refresh): the store counts
// its statements apart, so what requests cost can be told apart.
func AsBackground(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundWork{}, true)
}

// IsBackground tells whether ctx was marked by AsBackground.
func IsBackground(ctx context.Context) bool {
	return ctx != nil && ctx.Value(backgroundWork{}) != nil
}
