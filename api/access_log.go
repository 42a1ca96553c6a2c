package api

import (
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// accessLogMessage is the message of every access-log line.
const accessLogMessage = "request"

// AccessLog writes the INFO access-log line of an answered request, byte
// for byte as slog's text or JSON handler writes the same record, but
// without slog's general machinery: about a microsecond less per
// request. A line whose strings would need quoting or escaping is left to
// the logger, and so is every line at WARN and above (the 5xx answers),
// so that the logger's own handling of those (flushing, say) applies.
//
// Lines are gathered in batches, one per processor in use (see
// lineBatch), and written out a batch at a time: when a batch holds
// accessBatchBytes, and by Flush, which the owner of the output calls
// periodically and before a line of its own that must not wait (a
// warning). Requests on one processor then share no memory with those
// on another: an answer's line costs no lock or buffer that the other
// core last wrote. Lines of different processors may reach the output
// out of order, by at most the owner's flush interval; each carries its
// time.
type AccessLog struct {
	out  io.Writer
	json bool
	// batches hands each processor its batch (sync.Pool keeps one per
	// P); listed holds every batch with lines, so that none is lost when
	// the pool lets one go.
	batches sync.Pool
	mu      sync.Mutex
	listed  []*lineBatch
	// second is the last second rendered, shared by the lines within it.
	second atomic.Pointer[renderedSecond]
}

// accessBatchBytes is the size at which a batch is written out at once.
const accessBatchBytes = 8 << 10

// lineBatch is lines not yet written out.
type lineBatch struct {
	mu  sync.Mutex
	buf []byte
	// listed tells that the batch is in AccessLog.listed.
	listed bool
}

// NewAccessLog writes lines to out, in slog's JSON format when json is
// set, in its text format otherwise, a batch of whole lines per Write.
// Out must be safe for concurrent use. Lines wait in memory until Flush,
// at most accessBatchBytes per processor.
func NewAccessLog(out io.Writer, json bool) *AccessLog {
	return &AccessLog{out: out, json: json}
}

// accessEntry is what the access log says of one request.
type accessEntry struct {
	time          time.Time
	requestID     []byte
	method        string
	route         string
	status        int
	latency       time.Duration
	keyID         int64
	authenticated bool
}

// attrs are the entry's attributes as the logger gets them; the latency
// reads as a duration ("1.5ms") in both formats, never as nanoseconds.
func (e *accessEntry) attrs(record *slog.Record) {
	record.AddAttrs(
		slog.String("requestId", string(e.requestID)),
		slog.String("method", e.method),
		slog.String("route", e.route),
		slog.Int("status", e.status),
		slog.String("latency", e.latency.String()),
	)
	if e.authenticated {
		record.AddAttrs(slog.Int64("keyId", e.keyID))
	}
}

// write adds e's line to a batch and reports true, or reports false
// without writing when one of its strings needs quoting or escaping.
func (l *AccessLog) write(e *accessEntry) bool {
	if !plainValue(e.requestID) || !plainValue(e.method) || !plainValue(e.route) {
		return false
	}
	b, _ := l.batches.Get().(*lineBatch)
	if b == nil {
		b = &lineBatch{}
	}
	l.add(b, e)
	l.batches.Put(b)
	return true
}

// add appends e's line to b, writing b out once it holds
// accessBatchBytes.
func (l *AccessLog) add(b *lineBatch, e *accessEntry) {
	stamp := l.secondOf(e.time)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.listed {
		l.list(b)
	}
	if l.json {
		b.buf = appendJSONAccessLine(b.buf, e, stamp)
	} else {
		b.buf = appendTextAccessLine(b.buf, e, stamp)
	}
	if len(b.buf) >= accessBatchBytes {
		_, _ = l.out.Write(b.buf)
		b.buf = b.buf[:0]
	}
}

// list adds b, locked, to the listed batches.
func (l *AccessLog) list(b *lineBatch) {
	l.mu.Lock()
	l.listed = append(l.listed, b)
	l.mu.Unlock()
	b.listed = true
}

// Flush writes out every line written so far. A batch found empty has
// had no line since the last Flush: it leaves the list (it joins again
// with its next line), so batches the pool has let go are collected.
func (l *AccessLog) Flush() error {
	l.mu.Lock()
	listed := slices.Clone(l.listed)
	l.mu.Unlock()
	var err error
	for _, b := range listed {
		b.mu.Lock()
		if len(b.buf) > 0 {
			if _, writeErr := l.out.Write(b.buf); err == nil {
				err = writeErr
			}
			b.buf = b.buf[:0]
		} else {
			l.unlist(b)
		}
		b.mu.Unlock()
	}
	return err
}

// unlist takes b, locked and empty, off the list.
func (l *AccessLog) unlist(b *lineBatch) {
	l.mu.Lock()
	if i := slices.Index(l.listed, b); i >= 0 {
		l.listed = slices.Delete(l.listed, i, i+1)
	}
	l.mu.Unlock()
	b.listed = false
}

// secondOf is the rendered second of t, from the last line's when it is
// the same.
func (l *AccessLog) secondOf(t time.Time) *renderedSecond {
	if last := l.second.Load(); last != nil && last.holds(t) {
		return last
	}
	stamp := newRenderedSecond(t)
	l.second.Store(stamp)
	return stamp
}

// appendTextAccessLine renders e as slog's TextHandler renders it.
func appendTextAccessLine(b []byte, e *accessEntry, stamp *renderedSecond) []byte {
	b = append(b, "time="...)
	b = stamp.appendMillis(b, e.time)
	b = append(b, " level=INFO msg="...)
	b = append(b, accessLogMessage...)
	b = append(append(b, " requestId="...), e.requestID...)
	b = append(append(b, " method="...), e.method...)
	b = append(append(b, " route="...), e.route...)
	b = strconv.AppendInt(append(b, " status="...), int64(e.status), 10)
	b = append(append(b, " latency="...), e.latency.String()...)
	if e.authenticated {
		b = strconv.AppendInt(append(b, " keyId="...), e.keyID, 10)
	}
	return append(b, '\n')
}

// appendJSONAccessLine renders e as slog's JSONHandler renders it.
func appendJSONAccessLine(b []byte, e *accessEntry, stamp *renderedSecond) []byte {
	b = append(b, `{"time":"`...)
	b = stamp.appendNanos(b, e.time)
	b = append(b, `","level":"INFO","msg":"`...)
	b = append(b, accessLogMessage...)
	b = append(append(b, `","requestId":"`...), e.requestID...)
	b = append(append(b, `","method":"`...), e.method...)
	b = append(append(b, `","route":"`...), e.route...)
	b = strconv.AppendInt(append(b, `","status":`...), int64(e.status), 10)
	b = append(append(append(b, `,"latency":"`...), e.latency.String()...), '"')
	if e.authenticated {
		b = strconv.AppendInt(append(b, `,"keyId":`...), e.keyID, 10)
	}
	return append(b, "}\n"...)
}

// renderedSecond is one second of one zone rendered as RFC 3339, the
// date and time before the fraction and the zone after it: what the
// lines within that second share.
type renderedSecond struct {
	unix     int64
	location *time.Location
	// offset is the zone's offset from UTC then, in seconds.
	offset   int
	dateTime string // 2006-01-02T15:04:05
	zone     string // Z07:00
}

func newRenderedSecond(t time.Time) *renderedSecond {
	const dateTimeLen = len("2006-01-02T15:04:05")
	whole := t.Round(0).Truncate(time.Second)
	rendered := whole.Format(time.RFC3339)
	_, offset := whole.Zone()
	return &renderedSecond{
		unix: whole.Unix(), location: whole.Location(), offset: offset,
		dateTime: rendered[:dateTimeLen], zone: rendered[dateTimeLen:],
	}
}

// holds reports whether t falls in this second of this zone.
func (r *renderedSecond) holds(t time.Time) bool {
	if t.Unix() != r.unix || t.Location() != r.location {
		return false
	}
	_, offset := t.Zone()
	return offset == r.offset
}

// appendMillis writes t, of this second, as slog's text handler does:
// RFC 3339 with exactly three decimals.
func (r *renderedSecond) appendMillis(b []byte, t time.Time) []byte {
	millis := t.Nanosecond() / int(time.Millisecond)
	b = append(append(b, r.dateTime...), '.', byte('0'+millis/100), byte('0'+millis/10%10), byte('0'+millis%10))
	return append(b, r.zone...)
}

// appendNanos writes t, of this second, as slog's JSON handler does:
// time.RFC3339Nano, whose fraction drops its trailing zeros (and its dot
// when nothing is left).
func (r *renderedSecond) appendNanos(b []byte, t time.Time) []byte {
	b = append(b, r.dateTime...)
	if nanos := t.Nanosecond(); nanos != 0 {
		var fraction [10]byte
		fraction[0] = '.'
		for i := 9; i >= 1; i-- {
			fraction[i] = byte('0' + nanos%10)
			nanos /= 10
		}
		end := len(fraction)
		for fraction[end-1] == '0' {
			end--
		}
		b = append(b, fraction[:end]...)
	}
	return append(b, r.zone...)
}

// plainValue reports whether s reads the same in both formats without
// quoting or escaping: not empty, and only letters, digits and a few
// punctuation marks that neither format treats specially.
func plainValue[S string | []byte](s S) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == '/', c == ':', c == '~', c == '+', c == '@', c == '%':
		default:
			return false
		}
	}
	return true
}
