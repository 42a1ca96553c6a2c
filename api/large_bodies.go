package api

import (
	"time"

	"golang.org/x/time/rate"

	"github.com/crownsdev/crowns/models"
)

// largeBodies bounds the memory the HTTP server sets aside for request
// bodies past maxBody, which leak reports alone may have (up to
// maxLeakReportBody). fasthttp allocates a body's whole Content-Length
// as soon as its head has come, before a byte of the body: without this
// bound, 250 connections of one client address announcing 256 KiB each
// and sending nothing more held 64 MiB for the read timeout.
//
// The bound is a token bucket of announced bytes: largeBodyBurst at
// once, refilled over the read timeout, so that the bodies still being
// read (none for longer than the read timeout) hold at most twice
// largeBodyBurst. A report that finds the bucket short of its length is
// answered 503 with Retry-After before its body is read (GitHub sends a
// report again); 16 full reports fit at once.
type largeBodies struct {
	clock  models.Clock
	bucket *rate.Limiter
}

// largeBodyBurst is the bytes of large bodies admitted at once.
const largeBodyBurst = 4 << 20

// newLargeBodies is the bound for bodies read within readTimeout each.
func newLargeBodies(clock models.Clock, readTimeout time.Duration) *largeBodies {
	perSecond := rate.Limit(float64(largeBodyBurst) / readTimeout.Seconds())
	return &largeBodies{clock: clock, bucket: rate.NewLimiter(perSecond, largeBodyBurst)}
}

// admit reports whether a body of n bytes may be read now, and counts it
// if so.
func (b *largeBodies) admit(n int) bool { return b.bucket.AllowN(b.clock.Now(), n) }
