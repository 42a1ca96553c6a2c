package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logFlushInterval is how long a log line of crowns serve may wait in
// memory before it is written out.
const logFlushInterval = 100 * time.Millisecond

// logBufferSize is the memory of the log buffer; a full buffer is written
// out at once.
const logBufferSize = 64 << 10

// bufferedLog is the log output of crowns serve. One access-log line per
// request written straight to stderr would cost a system call each;
// lines are gathered here and written out every logFlushInterval, when
// the buffer is full, at once after a line at WARN or above (the
// flushingHandler sees to it), and at shutdown. A crash loses at most the
// INFO lines of the last interval.
type bufferedLog struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	stop context.CancelFunc
	done chan struct{}
}

// newBufferedLog buffers out and flushes it every logFlushInterval until
// Close.
func newBufferedLog(out io.Writer) *bufferedLog {
	ctx, stop := context.WithCancel(context.Background())
	b := &bufferedLog{buf: bufio.NewWriterSize(out, logBufferSize), stop: stop, done: make(chan struct{})}
	go b.flushEvery(ctx, logFlushInterval)
	return b
}

// Write takes one log line (slog handlers write a record at a time).
func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Flush writes out what is buffered.
func (b *bufferedLog) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Flush()
}

// Close stops the periodic flush and writes out what is left.
func (b *bufferedLog) Close() error {
	b.stop()
	<-b.done
	return b.Flush()
}

func (b *bufferedLog) flushEvery(ctx context.Context, interval time.Duration) {
	defer close(b.done)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			_ = b.Flush()
		}
	}
}

// flushingHandler writes a record through its handler and, for WARN and
// above, flushes the buffered output at once: warnings and errors are
// never left waiting in memory.
type flushingHandler struct {
	slog.Handler
	out *bufferedLog
}

// Handle writes the record, flushing after a warning or an error.
func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if flushErr := h.out.Flush(); err == nil {
			err = flushErr
		}
	}
	return err
}

// WithAttrs keeps the flushing behaviour on the derived handler.
func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithAttrs(attrs), out: h.out}
}

// WithGroup keeps the flushing behaviour on the derived handler.
func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithGroup(name), out: h.out}
}

// newBufferedLogger is the logger of a long-running command: cfg's format
// and level over out.
func newBufferedLogger(out *bufferedLog, cfg config) *slog.Logger {
	return slog.New(flushingHandler{Handler: logHandler(out, cfg), out: out})
}
