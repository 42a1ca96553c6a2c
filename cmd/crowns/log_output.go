package main

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// logFlushInterval is how long a log line of crowns serve may wait in
// memory before it is written out.
const logFlushInterval = 100 * time.Millisecond

// logBufferBytes is the size at which a log buffer is written out at once.
const logBufferBytes = 16 << 10

// bufferedLog is the log output of crowns serve. One access line per
// request written straight to stderr would cost a system call each, and
// one buffer behind one lock would make the cores of a busy server take
// turns at it for every line. So lines wait in buffers, written out every
// logFlushInterval, when one holds logBufferBytes, at once after a line
// at WARN or above (the flushingHandler sees to it, with every line
// before it), and at Close. Log records (Write) all go into the first
// buffer, in order; the API's access lines (accessLines) each into the
// first buffer free (see lockBuffer), so that cores do not wait for each
// other.
//
// An access line may therefore reach the output out of order with other
// lines, by at most logFlushInterval; each carries its time. A crash
// loses at most the INFO lines of the last interval.
//
// Measured (docs/performance.md): serving one cached 15 kB battles answer
// under wrk on two cores, Crowns spent 6.45 µs of user CPU a request with
// every line through one buffer behind one lock, 5.8 µs with these
// buffers (and 4.8–5.2 µs with api/internal/accesslog writing the lines);
// 4.4–4.6 µs with the access log off.
type bufferedLog struct {
	// outMu serializes the writes to out.
	outMu   sync.Mutex
	out     io.Writer
	buffers []logBuffer
	stop    context.CancelFunc
	done    chan struct{}
}

// logBuffer is lines not yet written out, behind a lock of their own.
type logBuffer struct {
	mu    sync.Mutex
	lines []byte
	// The padding keeps each buffer's lock on a cache line of its own, so
	// that cores writing to different buffers do not slow each other.
	_ [64]byte
}

// newBufferedLog buffers out and writes it out every logFlushInterval
// until Close. It keeps twice as many buffers as the processors Go uses,
// so that a line nearly always finds one free at the first try.
func newBufferedLog(out io.Writer) *bufferedLog {
	ctx, stop := context.WithCancel(context.Background())
	b := &bufferedLog{out: out, buffers: make([]logBuffer, 2*runtime.GOMAXPROCS(0)), stop: stop, done: make(chan struct{})}
	go b.flushEvery(ctx, logFlushInterval)
	return b
}

// Write takes a whole line (slog handlers write a record at a time) into
// the first buffer, where log records keep their order.
func (b *bufferedLog) Write(p []byte) (int, error) {
	buffer := &b.buffers[0]
	buffer.mu.Lock()
	defer buffer.mu.Unlock()
	return b.appendLocked(buffer, p)
}

// accessLines is the writer of the API's access lines: each, a whole
// line, goes into the first free buffer.
func (b *bufferedLog) accessLines() io.Writer { return anyFreeBuffer{b} }

// anyFreeBuffer writes a line into the first free buffer of its log.
type anyFreeBuffer struct{ log *bufferedLog }

func (w anyFreeBuffer) Write(p []byte) (int, error) {
	buffer := w.log.lockBuffer()
	defer buffer.mu.Unlock()
	return w.log.appendLocked(buffer, p)
}

// appendLocked adds p to buffer, locked by the caller, writing the buffer
// out once it holds logBufferBytes.
func (b *bufferedLog) appendLocked(buffer *logBuffer, p []byte) (int, error) {
	buffer.lines = append(buffer.lines, p...)
	if len(buffer.lines) >= logBufferBytes {
		if err := b.writeOutLocked(buffer); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// lockBuffer locks and returns the first free buffer from a random one
// on, or waits for that one when none is free.
func (b *bufferedLog) lockBuffer() *logBuffer {
	start := rand.N(len(b.buffers))
	for i := range b.buffers {
		if buffer := &b.buffers[(start+i)%len(b.buffers)]; buffer.mu.TryLock() {
			return buffer
		}
	}
	buffer := &b.buffers[start]
	buffer.mu.Lock()
	return buffer
}

// Flush writes out what is buffered.
func (b *bufferedLog) Flush() error {
	var err error
	for i := range b.buffers {
		buffer := &b.buffers[i]
		buffer.mu.Lock()
		if writeErr := b.writeOutLocked(buffer); err == nil {
			err = writeErr
		}
		buffer.mu.Unlock()
	}
	return err
}

// writeOutLocked writes the lines of buffer, locked by the caller, out.
func (b *bufferedLog) writeOutLocked(buffer *logBuffer) error {
	if len(buffer.lines) == 0 {
		return nil
	}
	b.outMu.Lock()
	_, err := b.out.Write(buffer.lines)
	b.outMu.Unlock()
	buffer.lines = buffer.lines[:0]
	return err
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
// never left waiting in memory, nor are the lines before them.
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
