package keys

import (
	"context"
	"fmt"
)

// RedactStoredReasons rewrites every stored reason that holds a key, or
// what starts like one, into its Redact form, and returns how many it
// rewrote. Reasons are redacted before they are stored (storableReason,
// leakURL), but rows written by releases before that may hold a key's
// plaintext. Only the rows holding the prefix are read, and a reason
// Redact leaves as it is is not written: a second run, or processes
// running it together, rewrite nothing more.
func (s *Service) RedactStoredReasons(ctx context.Context) (int, error) {
	reasons, err := s.db.StoredReasonsContaining(ctx, Prefix)
	if err != nil {
		return 0, fmt.Errorf("redact stored reasons: %w", err)
	}
	rewritten := 0
	for _, reason := range reasons {
		redacted := Redact(reason.Text)
		if redacted == reason.Text {
			continue
		}
		done, err := s.db.RewriteStoredReason(ctx, reason, redacted)
		if err != nil {
			return rewritten, fmt.Errorf("redact stored reasons: %w", err)
		}
		if done {
			rewritten++
		}
	}
	return rewritten, nil
}
